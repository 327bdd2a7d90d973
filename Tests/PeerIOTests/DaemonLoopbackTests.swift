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
final class DaemonLoopbackTests: LoopbackLabTestCase {
    /// `host`'s own peer id.
    private func peerID(_ host: LoopbackLab.Host) throws -> String {
        try IdentityKey.loadOrCreate(in: host.state).key.peerID
    }

    func testAMessageGoesFromOneDaemonToTheOthersClient() async throws {
        let (alpha, bravo) = (try lab.start("alpha"), try lab.start("bravo"))
        let bravoRow = try await lab.connect(alpha, to: bravo)
        // The row takes the name the accept carried (through the identity
        // actor, so a moment after the state).
        let alphaClient = try await lab.client(alpha)
        let named = try await lab.eventually { try await alphaClient.peer(bravoRow.id).name == "bravo" }
        XCTAssertTrue(named, "the name that came with the accept")
        let receiver = try await lab.client(bravo)
        let first = Task { () throws -> PeerMessage? in
            var iterator = receiver.messages().makeAsyncIterator()
            return try await iterator.next()
        }
        // Live, not from the inbox: bravo's client has subscribed first.
        let subscribed = try await lab.eventually { try await receiver.status().subscribers >= 1 }
        XCTAssertTrue(subscribed, "bravo's client never subscribed")
        let sent = try await lab.client(alpha).send(Array("over loopback".utf8), to: bravoRow.id)
        XCTAssertFalse(sent.queued)
        let message = try await first.value
        XCTAssertEqual(message?.bytes, Array("over loopback".utf8))
        XCTAssertEqual(message?.peerID, try peerID(alpha), "from alpha's key")
    }

    /// Both features that plug into the session, through the whole daemon:
    /// a channel's message is taken by the channel's client and no one
    /// else, and a datagram the UDP path cannot carry yet goes in the
    /// session (`datagramFrame`, fallback) to the other's `datagrams`.
    func testAChannelAndADatagramInTheSessionReachTheOtherDaemonsClients() async throws {
        let (alpha, bravo) = (try lab.start("alpha"), try lab.start("bravo"))
        let bravoRow = try await lab.connect(alpha, to: bravo)
        let alphaClient = try await lab.client(alpha)
        let bravoPeers = try await lab.client(bravo).peers()
        let alphaRow = try XCTUnwrap(bravoPeers.first { $0.name == "alpha" }, "\(bravoPeers)")

        // A channel each way: bravo's channel takes what alpha's sends.
        let toBravo = try await alphaClient.channel(to: bravoRow.id)
        let bravoChannel = try await lab.client(bravo).channel(to: alphaRow.id)
        try await toBravo.send(Array("by channel".utf8))
        let arrived = try await bravoChannel.receive()
        XCTAssertEqual(arrived, Array("by channel".utf8))

        // A datagram with fallback: in the session, to bravo's socket.
        let bravoClient = try await lab.client(bravo)
        let datagrams = try await bravoClient.datagrams()
        // Unreliable by design: send once bravo's daemon holds the socket.
        let holding = try await lab.eventually { try await bravoClient.status().datagrams?.receivers ?? 0 >= 1 }
        XCTAssertTrue(holding, "bravo's daemon never took the datagrams socket")
        let result = try await alphaClient.datagram(Array("dg".utf8), to: bravoRow.id, fallback: true)
        XCTAssertTrue(result.sent, "\(result)")
        let datagram = try await datagrams.receive()
        XCTAssertEqual(datagram?.data, Array("dg".utf8))
        // `peer` has the datagram path's part (a feature's `describe`).
        let info = try await lab.call(alpha, .peer, ControlParams(peer: bravoRow.id.uuidString))
        XCTAssertNotNil(info.datagrams, "the datagram path said what it knows of the peer")
    }
}
