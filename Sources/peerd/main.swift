import Dispatch
import Glibc
import PeerCore
import PeerIO
import PeerSystem
import PeerProtocol

// peerd: parse flags, build the daemon (PeerDaemon) on the main actor, install
// signal handlers, and run the main thread's event loop (Poller.runOnMainThread:
// it waits on the descriptors and services the main queue, where main-actor
// work runs).

func fail(_ message: String, code: Int32) -> Never {
    let line = Array("peerd: \(message)\n".utf8)
    line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
    exit(code)
}

let arguments = Array(CommandLine.arguments.dropFirst())
// The configuration file: --config PATH must exist; the default may not.
let explicitConfig = DaemonCommand.configPath(in: arguments)
let configPath = explicitConfig ?? ConfigFile.defaultPath
let configText: String?
do {
    let bytes = try AtomicFile.read(configPath, limit: 1 << 20)
    if bytes == nil, explicitConfig != nil { fail("\(configPath): no such file", code: 2) }
    do { configText = try bytes.map { bytes throws(UsageError) in try ConfigFile.text(of: bytes) } } catch {
        fail("\(configPath): \(error)", code: 2)
    }
} catch {
    fail("\(configPath): \(error)", code: 2)
}

let command: DaemonCommand
do {
    command = try DaemonCommand.parse(arguments, defaultName: HostName.short(), configText: configText)
} catch {
    let origin = error.message.hasPrefix("line ") ? "\(configPath): " : ""
    fail("\(origin)\(error)\nTry 'peerd --help'.", code: 2)
}

let config: DaemonConfiguration
switch command {
case .help:
    print(DaemonCommand.helpText)
    exit(0)
case .version:
    print(PeerdVersion.text(program: "peerd"))
    exit(0)
case .checkConfig(let checked):
    // What the start reads besides the flags: a key peerd could not use fails the check too.
    do { _ = try WideAreaSettings.from(checked) } catch { fail(error.description, code: 2) }
    print(configText == nil ? "no configuration file at \(configPath); the flags are valid" : "\(configPath): configuration is valid")
    exit(0)
case .run(let parsed):
    config = parsed
}

// Before any thread exists: once, start again with glibc's thread stack
// cache off (ThreadStackCache says why; the unit sets it, so systemd's
// daemon never execs). The same process, arguments and descriptors
// (systemd's socket and notify address included), exec'd by the binary's
// own path so the process keeps its name; if the exec fails, the daemon
// runs on as it is.
let inheritedTunables = getenv(ThreadStackCache.variable).map { String(cString: $0) }
if let tunables = ThreadStackCache.tunables(from: inheritedTunables) {
    setenv(ThreadStackCache.variable, tunables, 1)
    execv(ThreadStackCache.execPath(resolvedLink: ProcessName.executablePath()), CommandLine.unsafeArgv)
    // Still here: the exec failed. What children inherit stays as it was.
    if let inheritedTunables { setenv(ThreadStackCache.variable, inheritedTunables, 1) } else { unsetenv(ThreadStackCache.variable) }
}
// Exec'd through /proc/self/exe (no usable path above), the kernel named
// the process `exe`: the name comes back before any thread copies it.
if let name = ThreadStackCache.processName(current: ProcessName.current() ?? "", program: "peerd") {
    ProcessName.set(name)
}

// A client that vanishes mid-write must be EPIPE, not a fatal signal.
signal(SIGPIPE, SIG_IGN)
let logger = Logger(level: config.logLevel)
logger.debug("glibc tunables: \(getenv(ThreadStackCache.variable).map { String(cString: $0) } ?? "none")")

// The main thread will wait on the descriptors (Poller.runOnMainThread,
// at the end): the poller must start no thread of its own.
Poller.claimMainThread()

let activated: FileDescriptor?
do {
    activated = try SocketActivation.controlSocket()
} catch {
    logger.error("cannot use the socket systemd passed: \(error)")
    exit(1)
}

MainActor.assumeIsolated {
    let daemon: PeerDaemon
    do {
        daemon = try PeerDaemon(config: config, logger: logger, activatedControlSocket: activated)
    } catch {
        logger.error("cannot start: \(error)")
        exit(1)
    }
    daemon.start()
    for number in [SIGINT, SIGTERM] {
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
        source.setEventHandler {
            MainActor.assumeIsolated {
                logger.info("received \(number == SIGINT ? "SIGINT" : "SIGTERM"); stopping")
                daemon.shutdown()
                exit(0)
            }
        }
        source.resume()
        SignalSources.keep(source)
    }
}

// The main thread runs the poller's loop for good, in place of
// dispatchMain(): it waits on the descriptors and drains the main queue
// itself (Poller.runOnMainThread). The stack start-up touched below here
// is never used again.
ThreadStack.releaseBelowCurrentFrame()
Poller.runOnMainThread()
