import XCTest
@testable import PeerCore

final class RefusalCounterTests: XCTestCase {
    func testLogsTheFirstAndEveryHundredth() {
        var counter = RefusalCounter()
        let logged = (1...350).filter { _ in counter.record() }
        XCTAssertEqual(logged, [1, 100, 200, 300])
        XCTAssertEqual(counter.count, 350)
    }
}
