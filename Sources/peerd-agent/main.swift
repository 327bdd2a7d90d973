import Dispatch
import FoundationEssentials
import Glibc
import PeerKit
import PeerTools

// peerd-agent: the desktop's notifications of peerd (issue 45, point 2),
// a per-user service. Exit codes: 0 stopped, 1 error, 2 usage, 3 no
// daemon or no session bus (systemd's unit starts it again).

/// Writes one line to stderr (the journal, under the user unit).
func agentLog(_ words: String) {
    let line = Array("peerd-agent: \(words)\n".utf8)
    line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
}

let usage = """
    usage: peerd-agent [--socket PATH] [--app COMMAND]

    Shows peerd's invitations, file offers, pairing requests and finished
    transfers as desktop notifications (org.freedesktop.Notifications on
    the session bus), with buttons that answer them: Accept, Decline,
    Show, Enter code…, Open folder. Runs as the user, under the user unit
    peerd-agent.service or the session's autostart.

      --socket PATH   peerd's control socket (default: $PEERD_SOCKET, else
                      /run/peerd/peerd.sock)
      --app COMMAND   what Show and Enter code… run, with the offer's or the
                      pairing's id as the last word (default: peerd-gtk --show)
      --help          this text

    Only the default app's traffic is shown (an app with its own clients
    answers its own); a peer raises at most 5 notifications at once, and
    the rest are counted in one notice.
    """

let values: [String: String]
switch DesktopArguments.parse(Array(CommandLine.arguments.dropFirst()), options: ["--socket", "--app"]) {
case .success(.help):
    print(usage)
    exit(0)
case .success(.options(let given, _)):
    values = given
case .failure(let mistake):
    agentLog("\(mistake.text)\n\(usage)")
    exit(2)
}
let socket = values["--socket"]
let appCommand = values["--app"].map { $0.split(separator: " ").map(String.init) } ?? ["peerd-gtk", "--show"]

// Children it starts (xdg-open, the app) are never waited for.
signal(SIGCHLD, SIG_IGN)

Task { @MainActor in
    let bus: NotificationBus
    do { bus = try NotificationBus() } catch {
        agentLog("no session bus: \(error)")
        exit(3)
    }
    let client: PeerClient
    do { client = try await PeerClient.connect(socket: socket, reconnectFor: .seconds(365 * 86_400)) } catch {
        agentLog("cannot reach peerd: \(error)")
        exit(3)
    }
    let shell = AgentShell(client: client, bus: bus, appCommand: appCommand, userDownloads: UserDownloads.current(), now: { Date() })
    do { try await shell.run() } catch {
        agentLog("stopped: \(error)")
        exit(1)
    }
    exit(0)
}
dispatchMain()
