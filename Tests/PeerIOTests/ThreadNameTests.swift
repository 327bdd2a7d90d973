import Foundation
import PeerSystem
import Synchronization
import XCTest
@testable import PeerIO

/// Threads peerd starts carry its names (docs/architecture.md, "Threads").
final class ThreadNameTests: XCTestCase {
    func testAThreadNamesItselfAndTheProcessKeepsItsName() {
        let process = ProcessName.current()
        let named = expectation(description: "the thread ran")
        let seen = Mutex<String?>(nil)
        let thread = Thread {
            ThreadName.set("peerd-test-name-too-long")
            let name = ThreadName.current()
            seen.withLock { $0 = name }
            named.fulfill()
        }
        thread.start()
        wait(for: [named], timeout: 5)
        XCTAssertEqual(seen.withLock { $0 }, "peerd-test-name", "cut to the kernel's 15 bytes")
        XCTAssertEqual(ProcessName.current(), process, "the process's own name is the main thread's, untouched")
    }

    func testTheNamesPeerdGivesFitTheKernelsLimit() {
        for name in [Poller.threadName, QueuePoller.datagramThreadName, QueuePoller.laneThreadName] {
            XCTAssertLessThanOrEqual(name.utf8.count, 15, name)
            XCTAssertTrue(name.hasPrefix("peerd-"), name)
        }
        XCTAssertEqual(Set([Poller.threadName, QueuePoller.datagramThreadName, QueuePoller.laneThreadName]).count, 3)
    }
}
