import Foundation
import Glibc
import XCTest
@testable import PeerIO
@testable import PeerSystem

/// A stream's two local ends (`StreamPort`): what the client's input holds
/// is read when asked for, and what the peer sent goes out to the client's
/// output, kept while the output is full and reported as it drains, then
/// ended once everything is out.
@MainActor
final class StreamPortTests: XCTestCase {
    /// A pipe: its read end and its write end.
    private func pipePair() -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&ends), 0)
        return (ends[0], ends[1])
    }

    /// Waits for `condition`, turning the main queue over, for at most 10 s.
    private func eventually(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(10)
        while !condition() {
            guard Date() < deadline else { return XCTFail("timed out waiting until \(what)") }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }

    func testInputIsReadWhenWantedAndOutputIsKeptUntilTheReaderDrainsIt() async throws {
        let input = pipePair()
        let output = pipePair()
        defer { close(output.read) }
        let port = StreamPort(input: FileDescriptor(rawValue: input.read), output: FileDescriptor(rawValue: output.write))
        var readable = 0
        var written = 0
        var broken: String?
        port.start(onReadable: { readable += 1 }, onWritten: { written += $0 }, onBroken: { broken = $0 })
        defer { port.close() }
        XCTAssertFalse(port.inputAlwaysReady, "a pipe is waited on, unlike a file")

        // Input: nothing is reported until it is wanted.
        XCTAssertEqual(write(input.write, "abc", 3), 3)
        port.wantInput(true)
        try await eventually("the input is reported readable") { readable >= 1 }
        var buffer = [UInt8](repeating: 0, count: 16)
        let read = buffer.withUnsafeMutableBytes { port.read(into: $0) }
        guard case .bytes(3) = read else { return XCTFail("read \(read)") }
        XCTAssertEqual(Array(buffer[0..<3]), Array("abc".utf8))
        let again = buffer.withUnsafeMutableBytes { port.read(into: $0) }
        guard case .wouldBlock = again else { return XCTFail("nothing more yet, not \(again)") }

        // Output: more than the pipe holds waits in the port, not lost.
        let bytes = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        bytes.withUnsafeBytes { port.write($0) }
        XCTAssertGreaterThan(port.pendingCount, 0, "a pipe holds 64 KiB: the rest waits in the port")
        XCTAssertEqual(written + port.pendingCount, bytes.count, "every byte is written or kept")
        port.finishOutput()
        XCTAssertFalse(port.outputFinished, "not finished while bytes wait")

        // A reader off the main actor drains the pipe to its end.
        let reader = output.read
        let drained = Task.detached { () -> [UInt8] in
            var all: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = chunk.withUnsafeMutableBytes { Glibc.read(reader, $0.baseAddress, $0.count) }
                if count <= 0 { return all }
                all += chunk[0..<count]
            }
        }
        try await eventually("every byte is reported written") { written == bytes.count }
        try await eventually("the output is ended once drained") { port.outputFinished }
        let received = await drained.value
        XCTAssertEqual(received.count, bytes.count)
        XCTAssertTrue(received == bytes, "in order, byte for byte")
        XCTAssertEqual(port.pendingCount, 0)
        XCTAssertNil(broken)

        // The input's end: the writer closed.
        close(input.write)
        let end = buffer.withUnsafeMutableBytes { port.read(into: $0) }
        guard case .end = end else { return XCTFail("the input's end, not \(end)") }
    }

    func testAnOutputWhoseReaderWentIsReportedBroken() async throws {
        let input = pipePair()
        let output = pipePair()
        defer { close(input.write) }
        signal(SIGPIPE, SIG_IGN)
        close(output.read)
        let port = StreamPort(input: FileDescriptor(rawValue: input.read), output: FileDescriptor(rawValue: output.write))
        var broken: String?
        port.start(onReadable: {}, onWritten: { _ in }, onBroken: { broken = $0 })
        defer { port.close() }
        Array("lost".utf8).withUnsafeBytes { port.write($0) }
        XCTAssertNotNil(broken, "a write to a pipe no one reads is an error the stream hears of")
        XCTAssertEqual(broken?.contains("writing the stream's output"), true, broken ?? "")
    }
}

extension StreamPortTests {
    /// Which ends are read and written directly (``AlwaysReady``): a file
    /// and the memory devices, never a pipe, a socket or another device.
    func testFilesAndMemoryDevicesAreAlwaysReadyPipesAndSocketsAreWatched() async throws {
        let ends = pipePair()
        defer { close(ends.read); close(ends.write) }
        var pair: [Int32] = [-1, -1]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair), 0)
        defer { pair.forEach { close($0) } }
        let path = NSTemporaryDirectory() + "peerd-ready-\(UUID().uuidString)"
        let file = open(path, O_RDWR | O_CREAT, 0o600)
        defer { close(file); unlink(path) }
        let null = open("/dev/null", O_RDWR), zero = open("/dev/zero", O_RDONLY)
        defer { close(null); close(zero) }
        let rows: [(String, Int32, Bool)] = [("a pipe", ends.read, false), ("a socket", pair[0], false), ("a file", file, true),
                                             ("/dev/null", null, true), ("/dev/zero", zero, true), ("a closed descriptor", -1, false)]
        for (name, fd, ready) in rows { XCTAssertEqual(AlwaysReady.check(descriptor: fd), ready, name) }
        XCTAssertEqual(AlwaysReady.major(0x0103), 1, "/dev/null is 1:3")
        XCTAssertEqual(AlwaysReady.major(0x8801), 0x88, "a terminal's major is not 1")
    }

    /// `peerctl pipe … >/dev/null`: the stream's bytes are written to the
    /// device directly and count as drained at once.
    func testAStreamIntoDevNullIsWrittenDirectly() async {
        let input = pipePair()
        defer { close(input.write) }
        let port = StreamPort(input: FileDescriptor(rawValue: input.read), output: FileDescriptor(rawValue: open("/dev/null", O_WRONLY)))
        var written = 0
        var broken: String?
        port.start(onReadable: {}, onWritten: { written += $0 }, onBroken: { broken = $0 })
        defer { port.close() }
        let bytes = [UInt8](repeating: 7, count: 1 << 20)
        bytes.withUnsafeBytes { port.write($0) }
        XCTAssertEqual(written, 1 << 20)
        XCTAssertEqual(port.pendingCount, 0, "nothing waits for a device that is always ready")
        XCTAssertNil(broken)
    }
}
