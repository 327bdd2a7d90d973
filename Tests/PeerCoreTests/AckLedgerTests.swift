import XCTest
@testable import PeerCore

final class AckLedgerTests: XCTestCase {
    func testAcknowledgementsAreCumulativeAndBatched() {
        var ledger = AckLedger()
        XCTAssertNil(ledger.acknowledgement(every: 1), "nothing to acknowledge")
        for _ in 1...63 { ledger.receive() }
        XCTAssertNil(ledger.acknowledgement(every: 64), "63 wait: not yet a batch")
        ledger.receive()
        XCTAssertEqual(ledger.acknowledgement(every: 64), 64)
        XCTAssertNil(ledger.acknowledgement(every: 1), "all acknowledged")
        ledger.receive()
        XCTAssertEqual(ledger.acknowledgement(every: 1), 65, "the once-a-second acknowledgement takes any")
    }

    func testAnAcknowledgementOfMoreThanWasSentIsRefused() {
        var ledger = AckLedger()
        XCTAssertEqual(ledger.send(), 1)
        XCTAssertEqual(ledger.send(), 2)
        XCTAssertTrue(ledger.accepts(2))
        XCTAssertTrue(ledger.accepts(0))
        XCTAssertFalse(ledger.accepts(3))
    }
}
