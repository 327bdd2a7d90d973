import XCTest
import Foundation
import Glibc
@testable import PeerIO

/// Bulk jobs step back (nice 5) on their own thread, and only there: the
/// threads that carry small things keep their priority.
final class BulkThreadTests: XCTestCase {
    func testABulkJobLowersItsOwnThreadAlone() {
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        let before = getpriority(which, 0)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var inside: Int32 = -100
        let thread = Thread {
            BulkThread.stepBack()
            inside = getpriority(which, 0)
            done.signal()
        }
        thread.start()
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        // (A runner already nicer than 5 may not be able to come back up to it.)
        if before <= BulkThread.nice { XCTAssertEqual(inside, BulkThread.nice, "the job's thread runs at nice 5") }
        XCTAssertEqual(getpriority(which, 0), before, "the caller's thread is untouched")
    }
}
