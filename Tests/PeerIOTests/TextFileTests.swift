import XCTest
@testable import PeerSystem

/// Files under /proc say they are empty; `TextFile` reads them to their end.
final class TextFileTests: XCTestCase {
    func testReadsProcFilesToTheEndWithinTheLimit() {
        let status = TextFile.read("/proc/self/status")
        XCTAssertNotNil(status)
        XCTAssertTrue(status?.hasPrefix("Name:") == true, "a /proc file, whose stat size is 0, is read whole")
        XCTAssertEqual(TextFile.read("/proc/self/status", limit: 5), "Name:", "never past the limit")
        XCTAssertNil(TextFile.read("/nonexistent/peerd-test"))
    }
}
