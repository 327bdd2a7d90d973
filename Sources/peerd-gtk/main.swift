import CGtk
import FoundationEssentials
import Glibc
import PeerKit
import PeerTools

// peerd-gtk: the desktop app (issue 45, point 1), a split view of peerd's
// peers on PeerKit. GLib's main loop owns the main thread and runs the main
// queue (the main actor) from its descriptor. Exit codes: 0 closed, 2 usage.

let usage = """
    usage: peerd-gtk [--socket PATH] [--size WIDTHxHEIGHT] [--show ID] [FILE...]

    The peers peerd finds, grouped as paired, nearby and added, and the
    selected one beside them with what you can do with it: invite or
    disconnect, pair (showing the code, or typing the other host's),
    answer its invitation and its file offers, send it a message, and
    send it the FILEs given (a file manager's "Open With" passes them).
    Narrower than about 600 pixels it becomes one column with a Back button.

      --socket PATH   peerd's control socket (default: $PEERD_SOCKET, else
                      /run/peerd/peerd.sock)
      --size WxH      the window's size (default 1280x800)
      --show ID       an offer or pairing to show (from peerd-agent's Show)
      --help          this text
    """

/// Writes one line to stderr.
func warn(_ words: String) {
    let line = Array("peerd-gtk: \(words)\n".utf8)
    line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
}

let values: [String: String]
let files: [String]
switch DesktopArguments.parse(Array(CommandLine.arguments.dropFirst()), options: ["--socket", "--size", "--show"], files: true) {
case .success(.help):
    print(usage)
    exit(0)
case .success(.options(let given, let named)):
    values = given
    files = named
case .failure(let mistake):
    warn("\(mistake.text)\n\(usage)")
    exit(2)
}
let size: (Int32, Int32)
if let words = values["--size"] {
    let parts = words.split(separator: "x").compactMap { Int32($0) }
    guard parts.count == 2, parts.allSatisfy({ $0 >= 200 && $0 <= 10_000 }) else {
        warn("--size needs WIDTHxHEIGHT, each 200 to 10000")
        exit(2)
    }
    size = (parts[0], parts[1])
} else {
    size = (1280, 800)
}
let socket = values["--socket"]

// What it starts (xdg-open for Open folder) is never waited for.
signal(SIGCHLD, SIG_IGN)
g_set_prgname("peerd-gtk")
g_set_application_name("peerd")
gtk_init()
adw_init()
_ = peerd_gtk_attach_main_queue()
MainActor.assumeIsolated {
    let window = PeerWindow(width: size.0, height: size.1, files: files, now: { Date() })
    window.present()
    Task { @MainActor in
        while true {
            do {
                let client = try await PeerClient.connect(socket: socket, reconnectFor: .seconds(365 * 86_400))
                await window.follow(client, show: values["--show"])
            } catch {
                if let failure = error as? PeerError, case .unreachable(let path, let code, _) = failure {
                    window.say(DesktopProblem.unreachable(path: path, errno: code))
                } else {
                    window.say("\(error) (peerctl doctor tells more.)")
                }
            }
            try? await Task.sleep(for: .seconds(2))
        }
    }
}
g_main_loop_run(g_main_loop_new(nil, 0))
