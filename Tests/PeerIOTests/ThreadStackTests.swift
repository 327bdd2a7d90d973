import XCTest
import Foundation
import Glibc
@testable import PeerIO

/// A thread that once ran deep gives those stack pages back, and runs deep
/// again after with its values intact.
final class ThreadStackTests: XCTestCase {
    func testPagesBelowTheFrameGoBackAndTheThreadRunsOn() {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var before = -1, after = -1, again = -1
        nonisolated(unsafe) var released: Int?
        nonisolated(unsafe) var sums = (0, 0)
        let thread = Thread {
            sums.0 = Self.deep(256)
            before = Self.touchedStack()
            released = ThreadStack.releaseBelowCurrentFrame()
            after = Self.touchedStack()
            sums.1 = Self.deep(256)
            again = Self.touchedStack()
            done.signal()
        }
        thread.start()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertNotNil(released, "the bounds were read and madvise took the range")
        XCTAssertGreaterThanOrEqual(before, 256, "the recursion touched its 256 KiB (kB touched: \(before))")
        XCTAssertLessThan(after, 64, "what lay below the frame went back (kB touched: \(after), before \(before))")
        XCTAssertGreaterThanOrEqual(again, 256, "running deep again faults the pages back in")
        XCTAssertEqual(sums.0, sums.1, "the same work gives the same answer after")
        XCTAssertEqual(sums.0, (1...256).reduce(0) { $0 + ($1 & 0x7f) })
    }

    /// Recurses `depth` frames of 1 KiB of stack each, every byte written.
    @inline(never)
    static func deep(_ depth: Int) -> Int {
        guard depth > 0 else { return 0 }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { buffer in
            buffer.initialize(repeating: UInt8(depth & 0x7f))
            return deep(depth - 1) + Int(buffer[depth % 1024])
        }
    }

    /// Kilobytes of the calling thread's stack mapping that are touched
    /// (`Rss` of the mapping that holds a local), from /proc/self/smaps.
    @inline(never)
    static func touchedStack() -> Int {
        var local = 0
        let address = withUnsafeMutablePointer(to: &local) { UInt(bitPattern: $0) }
        // (procfs files report no size: read until the end.)
        let descriptor = open("/proc/self/smaps", O_RDONLY)
        guard descriptor >= 0 else { return -1 }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        var inside = false
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = words.first, range.contains("-"), !range.hasSuffix(":") {
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = bounds.count == 2 && bounds[0] <= address && address < bounds[1]
            } else if inside, words.first == "Rss:", words.count > 1 {
                return Int(words[1]) ?? -1
            }
        }
        return -1
    }
}
