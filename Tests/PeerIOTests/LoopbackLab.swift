import FoundationEssentials
import Glibc
import PeerCore
import PeerKit
import PeerSystem
import XCTest
@testable import PeerIO

/// Whole daemons in the unit tests' process, on loopback, each in a folder
/// of its own (the unit tier's lab): `add` joins them by address, so no
/// Avahi is needed, and PeerKit drives them as a program would.
@MainActor
final class LoopbackLab {
    /// One daemon, its control socket and its folder.
    struct Host {
        let daemon: PeerDaemon
        let socket: String
        let root: String
        /// Its state folder (identity, inboxes, downloads).
        var state: String { root + "/state" }
    }

    private var hosts: [Host] = []

    /// Starts a daemon named `name` that takes `add` to loopback, in a
    /// folder of its own; `configure` changes its configuration first
    /// (by default it accepts every invitation).
    func start(_ name: String, _ configure: (inout DaemonConfiguration) -> Void = { _ in }) throws -> Host {
        // As peerd's main does: a write to a socket whose reader went is an
        // error to handle, not a signal that ends the process (the tests').
        signal(SIGPIPE, SIG_IGN)
        var template = Array("/tmp/peerd-loopback-XXXXXX".utf8CString)
        let root = try XCTUnwrap(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        var config = DaemonConfiguration(name: name)
        config.stateDirectory = root + "/state"
        config.socketPath = root + "/control.sock"
        config.serviceType = "_peerdloop\(getpid() % 10_000)._tcp"
        config.allowLocalAdd = true
        config.autoAccept = .all
        config.group = "peerd-loopback-absent"
        configure(&config)
        let daemon = try PeerDaemon(config: config, logger: Logger(level: .error))
        daemon.start()
        let host = Host(daemon: daemon, socket: config.socketPath, root: root)
        hosts.append(host)
        return host
    }

    /// Stops every daemon and removes its folder.
    func stop() {
        for host in hosts { host.daemon.shutdown() }
        for root in hosts.map(\.root) {
            if let pipe = popen("rm -rf '\(root)'", "r") { pclose(pipe) }
        }
        hosts = []
    }

    /// A PeerKit client of `host`.
    func client(_ host: Host) async throws -> PeerClient {
        try await PeerClient.connect(socket: host.socket, reconnectFor: .seconds(1))
    }

    /// One request to `host` with PeerKit's blocking client, off the main
    /// actor (the daemons run on it).
    func call<R: Sendable>(_ host: Host, _ call: ControlCall<R>, _ params: ControlParams) async throws -> R {
        let path = host.socket
        return try await Task.detached { () throws -> R in try ControlClient(path: path).call(call, params: params) }.value
    }

    /// `add`s `to` from `from` by its loopback session port: `to`'s row on
    /// `from` as the answer gave it.
    func add(_ from: Host, _ to: Host) async throws -> PeerSnapshot {
        let port = try await client(to).status().port
        var params = ControlParams()
        params.address = "127.0.0.1"
        params.port = Int(port)
        return try await call(from, .add, params).peer
    }

    /// `add`s `to` from `from` and waits until `from` holds it connected.
    func connect(_ from: Host, to: Host) async throws -> PeerSnapshot {
        let added = try await add(from, to)
        let peers = try await client(from)
        var row = added
        let connected = try await eventually { row = try await peers.peer(added.id); return row.state == .connected }
        XCTAssertTrue(connected, "never connected: \(row.state)")
        return row
    }

    /// A client of `host` subscribed to every event and reading them, so
    /// the daemon has someone to ask (invitations, offers, pairings); the
    /// caller cancels the task when done.
    func subscriber(_ host: Host) async throws -> Task<Void, any Error> {
        let client = try await client(host)
        let reading = Task { () throws -> Void in
            var iterator = client.events().makeAsyncIterator()
            while try await iterator.next() != nil {}
        }
        let subscribed = try await eventually { try await client.status().subscribers >= 1 }
        XCTAssertTrue(subscribed, "\(host.root): the subscriber never counted")
        return reading
    }

    /// Two clients, one on each host, with `app` registered on both: what
    /// an app's own invitation needs.
    func registered(_ app: String, on alpha: Host, _ bravo: Host) async throws -> (PeerClient, PeerClient) {
        let (first, second) = (try await client(alpha), try await client(bravo))
        _ = try await first.register(app: app)
        _ = try await second.register(app: app)
        return (first, second)
    }

    /// Waits for `condition`, which may ask the daemons, for at most
    /// `seconds`: true once it holds.
    func eventually(_ seconds: Double = 5, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while try await !condition() {
            guard Date() < deadline else { return false }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        return true
    }
}

/// A test case with a loopback lab of its own, stopped after each test.
@MainActor
class LoopbackLabTestCase: XCTestCase {
    /// The test's daemons.
    let lab = LoopbackLab()

    override func tearDown() async throws { lab.stop() }
}
