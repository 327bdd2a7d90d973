import FoundationEssentials
import Glibc
import XCTest
@testable import PeerCore
@testable import PeerIO
import PeerProtocol
import PeerSystem

/// Issue 45: files out of the download directory, on a real disk: a
/// folder listed without peerd's own files, files copied into descriptors
/// a client opened and then removed here, nothing followed through a
/// symlink, and a file that fails left where it was.
final class ShelfDiskTests: XCTestCase {
    private var folder = ""

    override func setUp() {
        folder = NSTemporaryDirectory() + "peerd-shelf-\(UUID().uuidString.prefix(8))"
        for sub in ["", "/downloads", "/downloads/host2", "/downloads/host2/photos", "/out"] { mkdir(folder + sub, 0o700) }
        write("/downloads/host2/a.txt", "alpha")
        write("/downloads/host2/photos/b.jpg", String(repeating: "b", count: 300_000))
        write("/downloads/host2/.peerd-0011-1.part", "partial")
        write("/secret", "not yours")
        symlink(folder + "/secret", folder + "/downloads/host2/link")
        symlink(folder + "/out", folder + "/downloads/host2/linked-folder")
    }

    override func tearDown() { _ = Subprocess.run(["rm", "-rf", folder]) }

    private func write(_ path: String, _ text: String) {
        let fd = open(folder + path, O_WRONLY | O_CREAT | O_TRUNC, 0o640)
        _ = Array(text.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    private func read(_ path: String) -> String? { TextFile.read(folder + path, limit: 1 << 20) }

    private func target(_ name: String) -> FileDescriptor {
        FileDescriptor(rawValue: open(folder + "/out/" + name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600))
    }

    func testAListingShowsFilesAndFoldersButNotPeerdsOwnOrSymlinks() throws {
        let disk = ShelfDisk(downloads: folder + "/downloads")
        let entries = try disk.entries(["host2"], atBase: false).get()
        XCTAssertEqual(Set(entries.map(\.name)), ["a.txt", "photos"])
        XCTAssertEqual(entries.first { $0.name == "a.txt" }?.size, 5)
        XCTAssertEqual(entries.first { $0.name == "photos" }?.kind, DownloadEntry.folder)
        XCTAssertEqual(try disk.entries([], atBase: true).get().map(\.name), ["host2"])
        if case .success = disk.entries(["linked-folder"], atBase: false) { XCTFail("a symlinked folder was listed") }
        XCTAssertEqual(try? disk.entries(["nobody"], atBase: false).get(), nil)
    }

    func testAFetchCopiesFlushesAndRemovesAndRefusesSymlinks() throws {
        let disk = ShelfDisk(downloads: folder + "/downloads")
        let paths = try DownloadRequest.paths(["a.txt", "photos/b.jpg", "link", "missing"], atBase: false, isDefaultApp: true).get()
        let results = zip(paths, ["a", "b", "c", "d"].map(target)).map { disk.fetch(base: ["host2"], path: $0, into: $1, keep: false) }
        XCTAssertEqual(results.map(\.path), ["a.txt", "photos/b.jpg", "link", "missing"])
        XCTAssertEqual(results[0].size, 5)
        XCTAssertEqual(results[0].removed, true)
        XCTAssertEqual(results[1].size, 300_000)
        XCTAssertEqual(read("/out/a"), "alpha")
        XCTAssertEqual(read("/out/b")?.count, 300_000)
        XCTAssertNil(read("/downloads/host2/a.txt"), "peerd's copy is gone once the client's is on disk")
        XCTAssertNil(read("/downloads/host2/photos/b.jpg"))
        var info = stat()
        XCTAssertEqual(stat(folder + "/downloads/host2/photos", &info), 0, "folders stay: a transfer may be landing in one")
        XCTAssertNotNil(results[2].error, "a symlink is never followed")
        XCTAssertEqual(read("/out/c"), "", "nothing of the symlink's target was copied")
        XCTAssertNotNil(results[3].error)
        XCTAssertEqual(read("/downloads/host2/.peerd-0011-1.part"), "partial")
    }

    func testKeepLeavesPeerdsCopyAndAReadOnlyDescriptorIsRefused() throws {
        let disk = ShelfDisk(downloads: folder + "/downloads")
        let paths = try DownloadRequest.paths(["a.txt"], atBase: false, isDefaultApp: true).get()
        let kept = [disk.fetch(base: ["host2"], path: paths[0], into: target("k"), keep: true)]
        XCTAssertEqual(kept[0].removed, false)
        XCTAssertEqual(read("/downloads/host2/a.txt"), "alpha")
        write("/out/ro", "")
        let readOnly = FileDescriptor(rawValue: open(folder + "/out/ro", O_RDONLY | O_CLOEXEC))
        let refused = [disk.fetch(base: ["host2"], path: paths[0], into: readOnly, keep: false)]
        XCTAssertNotNil(refused[0].error)
        XCTAssertEqual(read("/downloads/host2/a.txt"), "alpha", "a refused fetch leaves peerd's copy")
    }
}
