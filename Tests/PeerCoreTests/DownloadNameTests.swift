import XCTest
@testable import PeerCore

final class DownloadNameTests: XCTestCase {
    func testTakenNamesGetTheFirstFreeNumber() {
        let taken: Set<String> = ["photo.jpg", "photo (1).jpg", "notes", "archive.tar.gz", ".profile"]
        // (name, expected)
        let rows: [(String, String)] = [
            ("new.txt", "new.txt"),
            ("photo.jpg", "photo (2).jpg"),
            ("notes", "notes (1)"),
            ("archive.tar.gz", "archive.tar (1).gz"),
            (".profile", ".profile (1)"),
        ]
        for (name, expected) in rows {
            XCTAssertEqual(DownloadName.free(name) { taken.contains($0) }, expected, name)
        }
        XCTAssertNil(DownloadName.free("x") { _ in true }, "gives up rather than overwrite")
    }
}
