import XCTest
@testable import PeerCore

/// Issue 21, point 1.5: listings of an offer's files are bounded.
final class FileListingPageTests: XCTestCase {
    func testTable() {
        // (count, offset, max files, name bytes, each name's size, expected)
        let rows: [(Int, Int, Int, Int, Int, Range<Int>)] = [
            (0, 0, 16, 4096, 10, 0..<0),
            (5, 0, 16, 4096, 10, 0..<5),
            (100_000, 0, 16, 4096, 10, 0..<16),
            (100_000, 0, 16, 4096, 4096, 0..<1),       // one long name still goes
            (100_000, 0, 16, 4096, 1000, 0..<4),
            (10, 8, 16, 4096, 10, 8..<10),
            (10, 10, 16, 4096, 10, 10..<10),
            (10, 50, 16, 4096, 10, 10..<10),           // past the end: empty, not a trap
            (10, -3, 16, 4096, 10, 0..<10),
            (10, 0, 0, 4096, 10, 0..<1),               // max 0 still moves on
        ]
        for (count, offset, maxFiles, bytes, size, expected) in rows {
            XCTAssertEqual(FileListingPage.range(count: count, offset: offset, maxFiles: maxFiles, nameBytes: bytes, nameSize: { _ in size }), expected,
                           "\(count) files from \(offset), \(maxFiles) max, \(bytes) B, names of \(size) B")
        }
        XCTAssertEqual(FileListingPage.summary(count: 100_000, nameSize: { _ in 4000 }), 0..<1)
        XCTAssertEqual(FileListingPage.page(count: 100_000, offset: nil, max: nil, nameSize: { _ in 10 }), 0..<1000)
        XCTAssertEqual(FileListingPage.page(count: 100_000, offset: 2000, max: 50_000, nameSize: { _ in 10 }), 2000..<3000, "capped")
        XCTAssertEqual(FileListingPage.page(count: 100_000, offset: 0, max: nil, nameSize: { _ in 4096 }).count, 64, "256 KiB of names")
    }
}
