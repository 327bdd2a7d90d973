import XCTest
@testable import PeerCore
import PeerProtocol

/// Issue 45: the rules of `downloads`, `fetch` and `quickSave` apart from
/// the disk, as tables.
final class DownloadShelfRulesTests: XCTestCase {
    private func entry(_ name: String) -> DownloadEntry { DownloadEntry(name: name, kind: DownloadEntry.file, size: 1, mode: 0o644, mtime: 0) }

    func testWhatAListingShows() {
        let rows: [(String, Bool, Bool)] = [
            ("photo.jpg", true, true),
            (".bashrc", true, true),
            (".peerd-0011-3.part", true, false),
            (".peerd-x", false, false),
            (".apps", true, false),
            (".apps", false, true),
        ]
        for (name, atBase, shown) in rows {
            XCTAssertEqual(DownloadListing.shows(name, atBase: atBase), shown, "\(name) at base \(atBase)")
        }
    }

    func testPagesAreInBytewiseOrderAndBounded() {
        let names = ["b", "a", "Z", "é", "c"]
        let all = DownloadListing.page(names.map(entry), folder: "host", offset: nil, max: nil)
        XCTAssertEqual(all.entries.map(\.name), ["Z", "a", "b", "c", "é"])
        XCTAssertEqual(all.entriesOmitted, 0)
        XCTAssertEqual(all.folder, "host")
        let second = DownloadListing.page(names.map(entry), folder: "", offset: 2, max: 2)
        XCTAssertEqual(second.entries.map(\.name), ["b", "c"])
        XCTAssertEqual(second.entriesOmitted, 1)
        XCTAssertEqual(DownloadListing.page(names.map(entry), folder: "", offset: 99, max: 0).entries, [], "past the end: empty, never a trap")
        XCTAssertEqual(DownloadListing.page(names.map(entry), folder: "", offset: -3, max: 1).entries.map(\.name), ["Z"])
        let many = (0..<2500).map { entry(String(format: "f%05d", $0)) }
        XCTAssertEqual(DownloadListing.page(many, folder: "", offset: 0, max: 5000).entries.count, DownloadListing.maxPage)
        let long = (0..<1000).map { entry(String(repeating: "x", count: 250) + String($0)) }
        let bounded = DownloadListing.page(long, folder: "", offset: 0, max: nil)
        XCTAssertLessThanOrEqual(bounded.entries.reduce(0) { $0 + $1.name.utf8.count }, DownloadListing.maxNameBytes)
        XCTAssertEqual(bounded.entries.count + bounded.entriesOmitted, 1000)
    }

    func testFoldersAndPaths() {
        XCTAssertEqual(try DownloadRequest.folder(nil, isDefaultApp: true).get(), [])
        XCTAssertEqual(try DownloadRequest.folder("host2/photos", isDefaultApp: true).get(), ["host2", "photos"])
        for bad in ["../etc", "/etc", "host/../x", ".apps/chat", "a//b", ".peerd-1/x"] {
            if case .success = DownloadRequest.folder(bad, isDefaultApp: true) { XCTFail("\(bad) was taken") }
        }
        XCTAssertEqual(try DownloadRequest.folder(".apps", isDefaultApp: false).get(), [".apps"], "an app's directory has no apps' folder")
        XCTAssertEqual(try DownloadRequest.paths(["a.txt", "sub/b.txt"], atBase: false, isDefaultApp: true).get().map(\.description), ["a.txt", "sub/b.txt"])
        let refused: [[String]?] = [nil, [], ["a", "a"], ["../x"], ["/x"], Array(repeating: "x", count: 65).enumerated().map { "\($0.offset)" }]
        for paths in refused {
            if case .success = DownloadRequest.paths(paths, atBase: false, isDefaultApp: true) { XCTFail("\(String(describing: paths)) was taken") }
        }
        if case .success = DownloadRequest.paths([".apps/chat/x"], atBase: true, isDefaultApp: true) { XCTFail("the apps' folder from the default app") }
        XCTAssertNoThrow(try DownloadRequest.paths([".apps"], atBase: false, isDefaultApp: true).get(), "below the top, .apps is a peer's file")
    }

    func testQuickSaveRules() {
        XCTAssertEqual(try QuickSaveRequest.rule(folder: nil, uid: 1000).get(), nil)
        XCTAssertEqual(try QuickSaveRequest.rule(folder: "/home/ann/In", uid: 1000).get(), QuickSaveRule(uid: 1000, folder: "/home/ann/In"))
        for bad in ["relative/dir", "", "/home/a\nb", "/x\u{7f}", "/" + String(repeating: "a", count: 4096)] {
            if case .success = QuickSaveRequest.rule(folder: bad, uid: 1) { XCTFail("\(bad.debugDescription) was taken") }
        }
        let ann = QuickSaveRule(uid: 1000, folder: "/home/ann")
        // (existing, caller, refused)
        let rows: [(QuickSaveRule?, UInt32?, Bool)] = [
            (nil, 1000, false), (nil, 1001, false), (ann, 1000, false), (ann, 0, false), (ann, 1001, true), (ann, nil, true),
        ]
        for (existing, caller, refused) in rows {
            let refusal = QuickSaveRequest.refusal(existing: existing, caller: caller, peerName: "host2")
            XCTAssertEqual(refusal != nil, refused, "\(String(describing: existing)) by \(String(describing: caller))")
            if let refusal { XCTAssertEqual(refusal.code, .permissionDenied) }
        }
    }
}
