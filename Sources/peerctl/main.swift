import FoundationEssentials
import Glibc
import PeerKit
import PeerSystem
import PeerTools

// peerctl: a thin client of peerd's control socket. Exit codes: 0 ok,
// 1 operational error, 2 usage error, 3 daemon unreachable.

/// Writes one error to stderr. Lines are kept, but every control inside a
/// line is escaped: messages quote names and texts that peers chose.
func printError(_ message: String) {
    let safe = message.split(separator: "\n", omittingEmptySubsequences: false).map { TerminalText.escape(String($0)) }.joined(separator: "\n")
    let line = Array("peerctl: \(safe)\n".utf8)
    line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
}

func emit(_ text: String) {
    print(text, terminator: text.hasSuffix("\n") ? "" : "\n")
    flushOutput()
}

/// Writes bytes to standard output as they are (not as text: invalid
/// UTF-8 stays as it was), after anything printed before them. A reader
/// that went away ends peerctl quietly, as ``flushOutput()`` does.
func writeOut(_ bytes: [UInt8]) {
    flushOutput()
    var written = 0
    while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        if count < 0 && errno == EPIPE { exit(0) }
        guard count > 0 else {
            printError("cannot write standard output: \(String(cString: strerror(errno)))")
            exit(1)
        }
        written += count
    }
}

/// Writes out what was printed. SIGPIPE is ignored, so a reader that went
/// away (`peerctl watch | head`) shows up here: stop quietly, as the
/// signal would have.
func flushOutput() {
    if fflush(nil) != 0 && errno == EPIPE { exit(0) }
}

// A daemon that closes the connection (at its client limit, say) is an
// error to read and report, never a silent death by SIGPIPE.
signal(SIGPIPE, SIG_IGN)

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
    emit(PeerdVersion.text(program: "peerctl"))
    exit(0)
default:
    break
}

let environment = ProcessInfo.processInfo.environment
let socketPath = SocketPath.resolve(invocation.socket, environment: environment)

// These two open their own connections: top keeps two, and doctor must
// run (and say so) when the daemon is not there at all.
switch invocation.command {
case .top:
    do { exit(try PeerctlTop(socketPath: socketPath, json: invocation.json).run()) } catch {
        printError(error.description)
        exit(error.exitCode)
    }
case .doctor(let peer):
    exit(PeerctlDoctor(socketPath: socketPath, json: invocation.json, app: invocation.app).run(peer: peer))
default:
    break
}

do {
    let client = try ControlClient(path: socketPath)
    // --app: this connection holds the app for as long as the command runs.
    if let app = invocation.app {
        var params = ControlParams()
        params.app = app
        _ = try client.call(.register, params: params)
    }
    let commands = PeerctlCommands(client: client, json: invocation.json, app: invocation.app)
    exit(try commands.run(invocation.command))
} catch {
    printError(error.description)
    exit(error.exitCode)
}
