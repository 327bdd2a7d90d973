import FoundationEssentials
import Glibc
import PeerCore
import PeerKit
import PeerProtocol
import XCTest
@testable import PeerIO

/// The bulk lane (issue 44; docs/protocol.md §12) between two whole
/// daemons on loopback: it comes up for every session between two
/// releases that speak it, a file's bytes cross on it and arrive whole,
/// and `peer` says which path bulk takes.
@MainActor
final class LaneLoopbackTests: LoopbackLabTestCase {
    func testTheLaneComesUpAndAFileCrossesOnIt() async throws {
        let (alpha, bravo) = (try lab.start("alpha"), try lab.start("bravo"))
        let bravoRow = try await lab.connect(alpha, to: bravo)
        let client = try await lab.client(alpha)
        let bulk = try await settled(client, bravoRow.id, on: BulkPathInfo.lane)
        XCTAssertEqual(bulk?.path, BulkPathInfo.lane, "alpha's bulk toward bravo: \(String(describing: bulk))")
        let alphaRow = try await lab.client(bravo).peers().first { $0.state == .connected }
        let back = try await lab.client(bravo).peerDetails(try XCTUnwrap(alphaRow).id).bulk
        XCTAssertEqual(back?.path, BulkPathInfo.lane, "both ends settle on the lane")

        let path = alpha.root + "/lane.bin"
        let bytes = (0..<2_000_000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let transfer = try await client.sendFile(path, to: bravoRow.id)
        var last = transfer.started
        for try await info in transfer.progress { last = info }
        XCTAssertEqual(last.state, .completed, "\(last)")
        let downloads = bravo.state + "/downloads"
        var arrived: String?
        _ = try await lab.eventually {
            arrived = FileManager.default.subpaths(atPath: downloads)?.first { $0.hasSuffix("lane.bin") }.map { downloads + "/" + $0 }
            return arrived != nil
        }
        XCTAssertEqual(arrived.flatMap { FileManager.default.contents(atPath: $0) }.map { Array($0) == bytes }, true, "byte for byte")
        // It went on the lane: the session's own connection took none of it.
        let session = try XCTUnwrap(alpha.daemon.director.table[bravoRow.id])
        guard case .lane = session.bulkPath else { return XCTFail("bulk left the lane: \(session.bulkInfo)") }
    }

    func testWithoutALanePortBulkStaysOnTheSessionAndSaysWhy() async throws {
        let alpha = try lab.start("alpha")
        let bravo = try lab.start("bravo") { $0.lanePort = nil }
        let bravoRow = try await lab.connect(alpha, to: bravo)
        let client = try await lab.client(alpha)
        let bulk = try await settled(client, bravoRow.id, on: BulkPathInfo.session)
        XCTAssertEqual(bulk?.path, BulkPathInfo.session, "\(String(describing: bulk))")
        XCTAssertEqual(bulk?.reason, "the peer offered no lane (its lane port is closed)")
        // And a file still crosses, on the session.
        let path = alpha.root + "/stream.bin"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(repeating: 9, count: 300_000)))
        let transfer = try await client.sendFile(path, to: bravoRow.id)
        var last = transfer.started
        for try await info in transfer.progress { last = info }
        XCTAssertEqual(last.state, .completed, "\(last)")
    }

    /// `peer`'s bulk path for `id` once it is `path`, or the last seen.
    private func settled(_ client: PeerClient, _ id: UUID, on path: String) async throws -> BulkPathInfo? {
        var bulk: BulkPathInfo?
        _ = try await lab.eventually {
            bulk = try await client.peerDetails(id).bulk
            return bulk?.path == path
        }
        return bulk
    }
}
