import XCTest
@testable import PeerCore
@testable import PeerIO

/// SHA-256 for feature `sha256-blocks` (docs/protocol.md §8): FIPS 180-4's
/// digests, piece by piece as in one call, and the choice to announce it.
final class Sha256Tests: XCTestCase {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    func testKnownDigests() {
        XCTAssertEqual(hex(BlockHashKind.sha256.hash([])), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(hex(BlockHashKind.sha256.hash(Array("abc".utf8))), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let hello = BlockHashKind.sha256.hash(Array("hello".utf8))
        XCTAssertEqual(hex(hello), "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", "protocol.md §8's block hash")
        XCTAssertEqual(hex(BlockHashKind.sha256.hash(hello)), "9595c9df90075148eb06860365df33584b75bff782a510c6cd4883a419833d50",
                       "protocol.md §8's file hash: SHA-256 of the block hash")
    }

    func testPiecesHashAsTheWholeAndEachFinishStartsOver() {
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let digest = Sha256()
        var offset = 0
        for size in [1, 63, 64, 65, 4096, 100_000] where offset < bytes.count {
            digest.update(Array(bytes[offset..<min(bytes.count, offset + size)]))
            offset += size
        }
        digest.update(Array(bytes[offset...]))
        XCTAssertEqual(digest.finish(), BlockHashKind.sha256.hash(bytes))
        XCTAssertEqual(hex(digest.finish()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "finish starts over")
    }

    func testTheDaemonAnnouncesItOnlyWhereItIsFast() {
        XCTAssertEqual(LocalHello.ours.speaks(.sha256Blocks), Sha256.accelerated)
        XCTAssertTrue(LocalHello.ours.speaks(.bulkLane), "every other feature, always")
    }
}
