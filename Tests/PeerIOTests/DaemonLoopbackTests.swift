import FoundationEssentials
import Glibc
import PeerCore
import PeerKit
import PeerSystem
import XCTest
@testable import PeerIO

/// Two whole daemons in this process, on loopback, driven by PeerKit as a
/// program would (issue 43, point 4: the daemon hub had no unit test).
/// A `PeerDaemon` builds the hub (`SessionDirector`, `ControlRouter`,
/// `SessionRequests`, `SessionFeatures` with `ChannelDesk` and
/// `DatagramDesk`, the inboxes), and each test goes through it end to
/// end: `add`, an invitation accepted by policy, a message, a channel, a
/// datagram carried in the session, and `peer`'s part from a feature.
/// No Avahi is needed: `add` reaches the other by address.
@MainActor
final class DaemonLoopbackTests: XCTestCase {
    /// One daemon, its control socket and its folder.
    private struct Host {
        let daemon: PeerDaemon
        let socket: String
        let root: String
    }

    private var hosts: [Host] = []

    override func tearDown() async throws {
        for host in hosts { host.daemon.shutdown() }
        for root in hosts.map(\.root) { Self.remove(root) }
        hosts = []
    }

    private nonisolated static func remove(_ root: String) {
        let pipe = popen("rm -rf '\(root)'", "r")
        if let pipe { pclose(pipe) }
    }

    /// Starts a daemon named `name` that accepts every invitation and
    /// takes `add` to loopback, in a folder of its own.
    private func start(_ name: String) throws -> Host {
        var template = Array("/tmp/peerd-loopback-XXXXXX".utf8CString)
        let root = try XCTUnwrap(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        var config = DaemonConfiguration(name: name)
        config.stateDirectory = root + "/state"
        config.socketPath = root + "/control.sock"
        config.serviceType = "_peerdloop\(getpid() % 10_000)._tcp"
        config.allowLocalAdd = true
        config.autoAccept = .all
        config.group = "peerd-loopback-absent"
        let daemon = try PeerDaemon(config: config, logger: Logger(level: .error))
        daemon.start()
        let host = Host(daemon: daemon, socket: config.socketPath, root: root)
        hosts.append(host)
        return host
    }

    /// A PeerKit client of `host`.
    private func client(_ host: Host) async throws -> PeerClient {
        try await PeerClient.connect(socket: host.socket, reconnectFor: .seconds(1))
    }

    /// `add`s `to` from `from` by its loopback session port, and waits
    /// until `from` holds it connected: `to`'s row on `from`.
    private func connect(_ from: Host, to: Host) async throws -> PeerSnapshot {
        let port = try await client(to).status().port
        let path = from.socket
        let added = try await Task.detached { () throws -> InviteResult in
            var params = ControlParams()
            params.address = "127.0.0.1"
            params.port = Int(port)
            return try ControlClient(path: path).call(.add, params: params)
        }.value
        let peers = try await client(from)
        var row = added.peer
        let deadline = Date().addingTimeInterval(10)
        while row.state != .connected {
            guard Date() < deadline else { throw XCTSkip("never connected: \(row.state)") }
            try await Task.sleep(nanoseconds: 5_000_000)
            row = try await peers.peer(added.peer.id)
        }
        return row
    }

    /// Waits for an answer that takes a request, for at most 5 s.
    private func eventuallyAsync(_ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while try await !condition() {
            guard Date() < deadline else { return false }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        return true
    }

    /// `host`'s own peer id, as its status says.
    private func alphaID(_ host: Host) throws -> String {
        try IdentityKey.loadOrCreate(in: host.root + "/state").key.peerID
    }

    func testAMessageGoesFromOneDaemonToTheOthersClient() async throws {
        let (alpha, bravo) = (try start("alpha"), try start("bravo"))
        let bravoRow = try await connect(alpha, to: bravo)
        XCTAssertEqual(bravoRow.name, "bravo", "the name came with the accept")
        let receiver = try await client(bravo)
        let first = Task { () throws -> PeerMessage? in
            var iterator = receiver.messages().makeAsyncIterator()
            return try await iterator.next()
        }
        // Live, not from the inbox: bravo's client has subscribed first.
        let subscribed = try await eventuallyAsync { try await receiver.status().subscribers >= 1 }
        XCTAssertTrue(subscribed, "bravo's client never subscribed")
        let sent = try await client(alpha).send(Array("over loopback".utf8), to: bravoRow.id)
        XCTAssertFalse(sent.queued)
        let message = try await first.value
        XCTAssertEqual(message?.bytes, Array("over loopback".utf8))
        XCTAssertEqual(message?.peerID, try alphaID(alpha), "from alpha's key")
    }

    /// Both features that plug into the session, through the whole daemon:
    /// a channel's message is taken by the channel's client and no one
    /// else, and a datagram the UDP path cannot carry yet goes in the
    /// session (`datagramFrame`, fallback) to the other's `datagrams`.
    func testAChannelAndADatagramInTheSessionReachTheOtherDaemonsClients() async throws {
        let (alpha, bravo) = (try start("alpha"), try start("bravo"))
        let bravoRow = try await connect(alpha, to: bravo)
        let alphaClient = try await client(alpha)
        let bravoPeers = try await client(bravo).peers()
        let alphaRow = try XCTUnwrap(bravoPeers.first { $0.name == "alpha" }, "\(bravoPeers)")

        // A channel each way: bravo's channel takes what alpha's sends.
        let toBravo = try await alphaClient.channel(to: bravoRow.id)
        let bravoChannel = try await client(bravo).channel(to: alphaRow.id)
        try await toBravo.send(Array("by channel".utf8))
        let arrived = try await bravoChannel.receive()
        XCTAssertEqual(arrived, Array("by channel".utf8))

        // A datagram with fallback: in the session, to bravo's socket.
        let datagrams = try await client(bravo).datagrams()
        let result = try await alphaClient.datagram(Array("dg".utf8), to: bravoRow.id, fallback: true)
        XCTAssertTrue(result.sent, "\(result)")
        let datagram = try await datagrams.receive()
        XCTAssertEqual(datagram?.data, Array("dg".utf8))
        // `peer` has the datagram path's part (a feature's `describe`).
        let info = try await Task.detached { [socket = alpha.socket, id = bravoRow.id] () throws -> PeerResult in
            var params = ControlParams()
            params.peer = id.uuidString
            return try ControlClient(path: socket).call(.peer, params: params)
        }.value
        XCTAssertNotNil(info.datagrams, "the datagram path said what it knows of the peer")
    }
}
