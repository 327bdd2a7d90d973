import FoundationEssentials
import Glibc
import PeerCore
import PeerIO

// peerctl: a thin client of peerd's control socket. Exit codes: 0 ok,
// 1 operational error, 2 usage error, 3 daemon unreachable.

func printError(_ message: String) {
    let line = Array("peerctl: \(message)\n".utf8)
    line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
}

func emit(_ text: String) {
    print(text, terminator: text.hasSuffix("\n") ? "" : "\n")
    fflush(nil)
}

func json(_ value: some Encodable) -> String {
    (try? JSONLines.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
}

let invocation: PeerctlInvocation
do {
    invocation = try PeerctlInvocation.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    printError("\(error)\nTry 'peerctl --help'.")
    exit(2)
}

switch invocation.command {
case .help(let topic):
    if let topic {
        guard let text = PeerctlInvocation.help(for: topic) else {
            printError("unknown command '\(topic)'")
            exit(2)
        }
        emit(text)
    } else {
        emit(PeerctlInvocation.helpText)
    }
    exit(0)
case .version:
    emit("peerctl \(SessionManager.version)")
    exit(0)
default:
    break
}

let environment = ProcessInfo.processInfo.environment
let socketPath = invocation.socket ?? environment["PEERD_SOCKET"].flatMap { $0.isEmpty ? nil : $0 } ?? DaemonConfiguration.defaultSocketPath

do {
    let client = try ControlClient(path: socketPath)
    let render = PeerctlRenderer(now: Date())
    switch invocation.command {
    case .status:
        let status = try client.call(.status, as: DaemonStatus.self)
        emit(invocation.json ? json(status) : render.status(status))
    case .peers:
        let result = try client.call(.peers, as: PeersResult.self)
        emit(invocation.json ? json(result) : render.peers(result.peers))
    case .peer(let selector):
        let result = try client.call(.peer, params: ControlParams(peer: selector), as: PeerResult.self)
        emit(invocation.json ? json(result.peer) : render.peer(result.peer))
    case .watch(let since):
        let subscribed = try client.call(.subscribe, params: ControlParams(since: since), as: SubscribeResult.self)
        if subscribed.truncated {
            printError("some events after \(since ?? 0) were already discarded; run 'peerctl peers' for the full picture")
        }
        while true {
            let (event, _) = try client.nextEvent()
            if invocation.json {
                emit(json(event))
            } else {
                emit(PeerctlRenderer(now: Date()).event(event))
            }
            if event.type == .error {
                printError(event.error?.message ?? "the daemon ended the subscription")
                exit(1)
            }
        }
    case .help, .version:
        break
    }
} catch {
    printError(error.description)
    exit(error.exitCode)
}
