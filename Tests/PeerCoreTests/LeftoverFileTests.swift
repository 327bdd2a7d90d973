import XCTest
@testable import PeerCore
import PeerProtocol

/// Issue 21, point 1.4: which files the sweep may take.
final class LeftoverFileTests: XCTestCase {
    private let hex = "00112233445566778899aabbccddeeff"

    func testNames() {
        let flow = FlowID(hex: hex)!
        let rows: [(String, FlowID?)] = [
            (".peerd-\(hex)-0.part", flow),
            (".peerd-\(hex)-99999.blocks", flow),
            (".peerd-\(hex).accepted", flow),
            (".peerd-\(hex)-.part", nil),
            (".peerd-\(hex)-1x.part", nil),
            (".peerd-\(hex)-1.partial", nil),
            (".peerd-\(hex)-1234567.part", nil),
            (".peerd-0011-1.part", nil),
            ("report.pdf", nil),
            ("peerd-\(hex)-0.part", nil),
            (".peerd-\(hex)-٣.part", nil),
        ]
        for (name, expected) in rows { XCTAssertEqual(LeftoverFile.parse(name)?.flow, expected, name) }
    }

    func testExpiry() {
        let flow = FlowID(hex: hex)!
        let day: Int64 = 86_400
        XCTAssertTrue(LeftoverFile.isExpired(modified: 0, now: 8 * day, lifetime: 7 * day, flow: flow, held: []))
        XCTAssertFalse(LeftoverFile.isExpired(modified: 0, now: 6 * day, lifetime: 7 * day, flow: flow, held: []))
        XCTAssertFalse(LeftoverFile.isExpired(modified: 0, now: 8 * day, lifetime: 7 * day, flow: flow, held: [flow]), "a transfer held now keeps its files")
        XCTAssertFalse(LeftoverFile.isExpired(modified: 10 * day, now: 8 * day, lifetime: 7 * day, flow: flow, held: []), "a file from the future (a clock step) stays")
    }
}
