import Dispatch
import FoundationEssentials
import Glibc
import PeerKit

// chat: a terminal chat room on peerd, app "chat" (issue 24). It lists the
// hosts that run chat, invites them or accepts their invitations, and sends
// each line typed to every chat peer connected (one group send). It never
// puts the terminal in raw mode, so there is nothing to restore: Ctrl-C or
// Ctrl-D leave it as it was.

let usage = """
    Usage: chat [--socket PATH] [--accept]

    A chat room with the hosts that run chat. Type a line to send it to every
    connected chat peer. Commands:
      /peers          the hosts that run chat, and chat's state with each
      /invite NAME    invite NAME's chat
      /accept         accept every chat invitation waiting
      /quit           leave (Ctrl-D too)
    --accept accepts every chat invitation as it comes.
    """

var socket: String?
var acceptAll = false
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--socket": socket = arguments.popFirst()
    case "--accept": acceptAll = true
    case "--help", "-h": FileHandleOut.line(usage, to: 1); exit(0)
    default: FileHandleOut.error("chat: unknown argument '\(argument)'\n\(usage)"); exit(2)
    }
}

/// Writes whole lines to standard output and error, unbuffered, so each
/// shows at once (and a pipe reader sees it).
enum FileHandleOut {
    static func line(_ text: String, to fd: Int32) {
        let bytes = Array((text + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            sent += count
        }
    }
    static func error(_ text: String) { line(text, to: 2) }
}

/// Lines as typed, one at a time, read off the cooperative threads.
func standardInputLines() -> AsyncStream<String> {
    AsyncStream { continuation in
        DispatchQueue.global().async {
            while let line = readLine() { continuation.yield(line) }
            continuation.finish()
        }
    }
}

func say(_ text: String) { FileHandleOut.line(text, to: 1) }

let client: PeerClient
do {
    client = try await PeerClient.connect(socket: socket)
    try await client.register(app: "chat")
} catch {
    FileHandleOut.error("chat: \(error)")
    exit(3)
}

// Joins and leaves: chat's state with each peer, as the model sees it.
var shownConnected: Set<UUID> = []
let model = PeerSessionManager(app: "chat") { model in
    let now = Set(model.connected)
    for id in now.subtracting(shownConnected) { say("* \(model.peers.first { $0.id == id }?.name ?? "?") joined") }
    for id in shownConnected.subtracting(now) { say("* \(model.peers.first { $0.id == id }?.name ?? "a peer") left") }
    shownConnected = now
}
let following = Task { @MainActor in
    if let error = await model.run(client) { FileHandleOut.error("chat: lost peerd: \(error)"); exit(1) }
}

// Messages, the ones that waited first.
let receiving = Task { @MainActor in
    do {
        for try await message in client.messages(app: "chat") {
            let name = model.peers.first { $0.id == message.from }?.name ?? message.peerID ?? "?"
            say("<\(name)> \(String(decoding: message.bytes, as: UTF8.self))")
        }
    } catch {
        FileHandleOut.error("chat: \(error)")
    }
}

// Invitations to chat: shown, and accepted at once with --accept.
let invited = Task { @MainActor in
    do {
        for try await event in client.events(app: "chat") {
            guard case .event(let e) = event, e.type == .invitation, let invitation = e.invitation, invitation.app == "chat" else { continue }
            if acceptAll {
                _ = try? await client.accept(invitation.id)
            } else {
                say("* \(invitation.name) invites you to chat: /accept")
            }
        }
    } catch {
        FileHandleOut.error("chat: \(error)")
    }
}

say("chat: connected to peerd at \(client.socketPath); /peers lists who runs chat")
for await line in standardInputLines() {
    switch line {
    case "/quit":
        exit(0)
    case "/peers":
        for peer in model.peers { say("  \(peer.name)  \(model.peerStates[peer.id]?.rawValue ?? "?")") }
        if model.peers.isEmpty { say("  no host runs chat yet") }
    case "/accept":
        for invitation in (try? await client.invitations(app: "chat")) ?? [] { _ = try? await client.accept(invitation.id) }
    case let command where command.hasPrefix("/invite "):
        let name = String(command.dropFirst("/invite ".count))
        guard let peer = model.peers.first(where: { $0.name == name }) else { say("* no host named '\(name)' runs chat"); continue }
        do { try await client.invite(peer.id, app: "chat") } catch { say("* cannot invite \(name): \(error)") }
    case "":
        continue
    default:
        let to = model.connected
        guard !to.isEmpty else { say("* nobody is connected: /invite NAME"); continue }
        do {
            for failed in try await client.send(Array(line.utf8), to: to, app: "chat") where failed.error != nil {
                say("* not sent to \(failed.name ?? failed.selector): \(failed.error?.message ?? "")")
            }
        } catch {
            say("* not sent: \(error)")
        }
    }
}
following.cancel()
receiving.cancel()
invited.cancel()
