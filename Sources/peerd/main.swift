import Dispatch
import Glibc
import PeerCore
import PeerIO

// peerd: parse flags, build the session manager on the main actor, install
// signal handlers, and hand the main thread to Dispatch (main-actor work
// runs only while the main thread services the main queue).

func fail(_ message: String, code: Int32) -> Never {
    let line = Array("peerd: \(message)\n".utf8)
    line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
    exit(code)
}

let command: DaemonCommand
do {
    command = try DaemonCommand.parse(Array(CommandLine.arguments.dropFirst()), defaultName: HostName.short())
} catch {
    fail("\(error)\nTry 'peerd --help'.", code: 2)
}

let config: DaemonConfiguration
switch command {
case .help:
    print(DaemonCommand.helpText)
    exit(0)
case .version:
    print("peerd \(SessionManager.version)")
    exit(0)
case .run(let parsed):
    config = parsed
}

// A client that vanishes mid-write must be EPIPE, not a fatal signal.
signal(SIGPIPE, SIG_IGN)
let logger = Logger(level: config.logLevel)

let activated: FileDescriptor?
do {
    activated = try SocketActivation.controlSocket()
} catch {
    logger.error("cannot use the socket systemd passed: \(error)")
    exit(1)
}

MainActor.assumeIsolated {
    let manager: SessionManager
    do {
        manager = try SessionManager(config: config, logger: logger, activatedControlSocket: activated)
    } catch {
        logger.error("cannot start: \(error)")
        exit(1)
    }
    manager.start()
    for number in [SIGINT, SIGTERM] {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
        source.setEventHandler {
            MainActor.assumeIsolated {
                logger.info("received \(number == SIGINT ? "SIGINT" : "SIGTERM"); stopping")
                manager.shutdown()
                exit(0)
            }
        }
        source.resume()
        SignalSources.keep(source)
    }
}

dispatchMain()
