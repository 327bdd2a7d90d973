import XCTest
@testable import PeerCore
import PeerProtocol

/// The handshake hello (docs/protocol.md §3, §9): its bytes, its limits,
/// what an old peer's silence means, and which messages need which feature.
final class PeerHelloTests: XCTestCase {
    func testTheBytesArePinned() {
        let hello = PeerHello(release: "0.3.0", names: ["accept-name", "files", "streams", "apps", "datagrams", "once"])
        XCTAssertEqual(Array(hello.encode()), [0x01, 0x05] + Array("0.3.0".utf8) + [0x06, 0x0b] + Array("accept-name".utf8)
                       + [0x05] + Array("files".utf8) + [0x07] + Array("streams".utf8) + [0x04] + Array("apps".utf8)
                       + [0x09] + Array("datagrams".utf8) + [0x04] + Array("once".utf8))
        XCTAssertEqual(PeerHello.ours(fastSHA256: true).release, PeerdVersion.string)
        XCTAssertEqual(PeerHello.ours(fastSHA256: true).names, WireFeature.allCases.map(\.rawValue), "every feature it has")
        XCTAssertEqual(PeerHello.ours(fastSHA256: false).names, WireFeature.allCases.filter { $0 != .sha256Blocks }.map(\.rawValue),
                       "sha256-blocks only where SHA-256 is fast")
        XCTAssertEqual(WireFeature.allCases.map(\.rawValue), ["accept-name", "files", "streams", "apps", "datagrams", "once", "bulk-lane", "sha256-blocks"])
        XCTAssertEqual(WireFeature.bulkLane.addedIn, "0.4.0")
        XCTAssertEqual(try PeerHello.decode(hello.encode()), hello)
    }

    func testVersionTextGivesTheReleaseThenTheWireAndFeatures() {
        XCTAssertEqual(PeerdVersion.text(program: "peerd"), "peerd \(PeerdVersion.string)\nwire 1, features: accept-name files streams apps datagrams once bulk-lane sha256-blocks")
        XCTAssertEqual(PeerdVersion.text(program: "peerctl").split(separator: "\n").first, "peerctl \(PeerdVersion.string)")
    }

    func testAnEmptyPayloadIsRelease010WithNoFeatures() throws {
        let silent = try PeerHello.decode([])
        XCTAssertEqual(silent.release, "0.1.0")
        XCTAssertEqual(silent.features, [])
        XCTAssertFalse(silent.speaks(.files))
    }

    func testUnknownNamesAndLaterFieldsAreIgnoredAndTheRestIsStrict() throws {
        let later = PeerHello(release: "0.9.0", names: ["files", "teleport"]).encode() + [0xde, 0xad]
        var bumped = later
        bumped[0] = 7   // a later format appends fields: the ones of format 1 are still read
        let read = try PeerHello.decode(bumped)
        XCTAssertEqual(read.release, "0.9.0")
        XCTAssertEqual(read.names, ["files", "teleport"], "every name is kept to show")
        XCTAssertEqual(read.features, [.files], "only known ones count")
        let bad: [(String, [UInt8])] = [
            ("format 0", [0x00]),
            ("truncated release", [0x01, 0x05, 0x30]),
            ("empty release", [0x01, 0x00, 0x00]),
            ("release too long", [0x01, 33] + [UInt8](repeating: 0x30, count: 33) + [0]),
            ("release with a space", [0x01, 0x03, 0x30, 0x20, 0x31, 0x00]),
            ("a name in capitals", [0x01, 0x01, 0x31, 0x01, 0x05] + Array("Files".utf8)),
            ("an empty name", [0x01, 0x01, 0x31, 0x01, 0x00]),
            ("more names than said", [0x01, 0x01, 0x31, 0x02, 0x05] + Array("files".utf8)),
            ("too many names", [0x01, 0x01, 0x31, 65]),
        ]
        for (what, bytes) in bad {
            XCTAssertThrowsError(try PeerHello.decode(bytes), what)
        }
    }

    func testWhichMessagesNeedWhichFeature() {
        let flow = FlowID(bytes: [UInt8](repeating: 1, count: 16))!
        let table: [(WireMessage, Set<WireFeature>)] = [
            (.accept(name: ""), []), (.accept(name: "bravo"), [.acceptName]),
            (.invite(name: "a", context: [], timeoutMilliseconds: 1), []), (.data(more: false, bytes: [1]), []), (.ack(1), []),
            (.pairRequest, []), (.unpair, []),
            (.bulk(.offer(flow, more: false, totalFiles: 0, totalBytes: 0, files: [])), [.files]),
            (.bulk(.transferDone(flow)), [.files]), (.bulk(.streamOpen(flow, name: "x")), [.streams]),
            (.bulk(.streamEnd(flow)), [.streams]), (.bulk(.credit(flow, bytes: 1)), [.files, .streams]),
            (.bulk(.cancel(flow, reason: .cancelled, text: "")), [.files, .streams]),
            (.feature(type: 0x30, body: []), []),
            (.queued(QueueTag(epoch: 1, seq: 1)), [.once]),
        ]
        let streamsOnly = PeerHello(release: "9", names: ["streams"])
        for (message, needed) in table {
            XCTAssertEqual(WireFeature.needed(for: message), needed, "\(message)")
            XCTAssertEqual(PeerHello.silent.maySend(message), needed.isEmpty, "a 0.1.0 peer: \(message)")
            XCTAssertEqual(streamsOnly.maySend(message), needed.isEmpty || needed.contains(.streams), "streams only: \(message)")
        }
        XCTAssertNil(PeerHello.ours(fastSHA256: true).refusal(of: .bulk(.streamEnd(flow))))
        XCTAssertEqual(PeerHello.silent.refusal(of: .bulk(.credit(flow, bytes: 1))),
                       "a message that needs files or streams, which the peer did not announce")
        XCTAssertNil(streamsOnly.refusal(ofBytesOf: .streams))
        XCTAssertEqual(streamsOnly.refusal(ofBytesOf: .files), "files bytes from a peer that did not announce files")
        XCTAssertEqual(BulkDataHead.chunk(flow, file: 0, offset: 0).feature, .files)
        XCTAssertEqual(BulkDataHead.streamData(flow).feature, .streams)
    }

    func testTheUnsupportedErrorNamesThePeerItsReleaseAndTheFeature() {
        let error = ControlError.unsupported(.files, peer: "bravo", release: "0.1.0")
        XCTAssertEqual(error.code, .unsupported)
        XCTAssertEqual(error.message, "'bravo' runs peerd 0.1.0, which cannot receive files (no feature 'files'); upgrade it")
    }
}
