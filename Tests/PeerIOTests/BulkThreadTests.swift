import XCTest
import Foundation
import Glibc
@testable import PeerIO

/// A bulk job runs at nice 10 (BulkThread.nice) on its thread, and only while it runs: the
/// thread goes back to its own priority after, and other threads keep theirs.
final class BulkThreadTests: XCTestCase {
    func testABulkJobRunsAtNiceFiveAndPutsItsThreadBack() {
        XCTAssertNil(BulkThread.refusal, "the tests run as root: the probe steps a thread back and returns it")
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        let before = getpriority(which, 0)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var during: Int32 = -100
        nonisolated(unsafe) var after: Int32 = -100
        nonisolated(unsafe) var elsewhere: Int32 = -100
        let thread = Thread {
            let start = getpriority(which, 0)
            during = BulkThread.run { getpriority(which, 0) }
            after = getpriority(which, 0) - start
            done.signal()
        }
        let watched = DispatchSemaphore(value: 0)
        let watcher = Thread {
            // Another thread, made after: untouched.
            elsewhere = getpriority(which, 0)
            watched.signal()
        }
        thread.start()
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
        watcher.start()
        XCTAssertEqual(watched.wait(timeout: .now() + 5), .success)
        // (A runner already nicer than that is left as it is.)
        if before <= BulkThread.nice { XCTAssertEqual(during, BulkThread.nice, "the job runs at the bulk nice value") }
        XCTAssertEqual(after, 0, "the thread is back where it was (the tests run as root, or with LimitNICE)")
        XCTAssertEqual(elsewhere, before, "other threads keep their priority")
        XCTAssertEqual(getpriority(which, 0), before, "the caller's thread is untouched")
    }
}
