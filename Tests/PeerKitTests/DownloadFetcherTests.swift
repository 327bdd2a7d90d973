import Foundation
import Glibc
@testable import PeerKit
import PeerProtocol
import PeerSystem

import XCTest

/// Issue 45: taking files out of the download directory never loses one.
/// A connection that breaks during a `fetch` leaves every file peerd may
/// have copied (and removed on its side); only a file still empty whose
/// landed size was not is taken back.
final class DownloadFetcherTests: XCTestCase {
    func testAFetchCutOffKeepsWhatPeerdMayHaveCopied() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("fetch-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let daemon = try FakeDaemon { _, connection in
            guard let list = connection.request(), list.method == ControlMethod.downloads.rawValue else { return connection.close() }
            connection.answer(list, DownloadsResult(folder: "host2", entries: [
                DownloadEntry(name: "a.txt", kind: DownloadEntry.file, size: 5, mode: 0o644, mtime: 1_700_000_000),
                DownloadEntry(name: "b.txt", kind: DownloadEntry.file, size: 7, mode: 0o644, mtime: 1_700_000_000),
            ], entriesOmitted: 0))
            guard let (fetch, targets) = connection.requestWithDescriptors(), fetch.method == ControlMethod.fetch.rawValue, targets.count == 2 else {
                return connection.close()
            }
            // peerd copied the first file (and removed its own), then went away.
            _ = try? targets[0].write(Array("alpha".utf8), at: 0)
            targets.forEach { $0.close() }
            connection.close()
        }
        defer { daemon.stop() }
        let client = try ControlClient(path: daemon.path)
        XCTAssertThrowsError(try DownloadFetcher(client: client, app: nil, keep: false).fetchAll(folder: "host2", into: out))
        XCTAssertEqual(try String(contentsOfFile: out + "/a.txt", encoding: .utf8), "alpha", "a copy peerd may have made stays")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out + "/b.txt"), "an empty file whose landed size was not is taken back")
    }
}
