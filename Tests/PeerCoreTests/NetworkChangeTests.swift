import XCTest
@testable import PeerCore

final class NetworkChangeTests: XCTestCase {
    /// One netlink message: header (length, type, flags, seq, pid) and body,
    /// little-endian as on the machines this runs on, padded to 4 bytes.
    private func message(type: UInt16, body: [UInt8]) -> [UInt8] {
        let length = UInt32(16 + body.count)
        var bytes = le(length) + le16(type) + le16(0) + le(1) + le(0) + body
        while bytes.count % 4 != 0 { bytes.append(0) }
        return bytes
    }

    private func le(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }
    private func le16(_ value: UInt16) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }

    /// struct ifinfomsg for `index` with `flags`.
    private func link(_ index: Int32, flags: UInt32, type: UInt16 = 16) -> [UInt8] {
        message(type: type, body: [2, 0] + le16(1) + le(UInt32(bitPattern: index)) + le(flags) + le(0xFFFF_FFFF))
    }

    /// struct ifaddrmsg for `index`, with a 5-byte attribute to force padding.
    private func address(_ index: Int32, type: UInt16 = 20) -> [UInt8] {
        message(type: type, body: [2, 16, 0, 253] + le(UInt32(bitPattern: index)) + le16(5) + le16(1) + [7])
    }

    func testParsesLinksAndAddressesInOrder() {
        let up: UInt32 = 0x1 | 0x40 | 0x10000
        let datagram = link(3, flags: up) + address(3) + link(4, flags: 0x1) + address(4, type: 21) + link(5, flags: 0, type: 17)
        XCTAssertEqual(NetlinkRouteParser.parse(datagram), [
            .link(index: 3, running: true), .addressAdded(index: 3), .link(index: 4, running: false),
            .addressRemoved(index: 4), .linkRemoved(index: 5),
        ])
    }

    func testRunningNeedsUpAndCarrier() {
        XCTAssertEqual(NetlinkRouteParser.parse(link(2, flags: 0x40)), [.link(index: 2, running: false)])
        XCTAssertEqual(NetlinkRouteParser.parse(link(2, flags: 0x41)), [.link(index: 2, running: true)])
    }

    func testMalformedInputStopsWithoutTrapping() {
        let good = link(3, flags: 0x41)
        XCTAssertEqual(NetlinkRouteParser.parse([]), [])
        XCTAssertEqual(NetlinkRouteParser.parse(Array(good.prefix(20))), [], "a length past the end")
        var zeroLength = good
        zeroLength.replaceSubrange(0..<4, with: le(0))
        XCTAssertEqual(NetlinkRouteParser.parse(zeroLength), [], "a zero length would loop forever")
        XCTAssertEqual(NetlinkRouteParser.parse(message(type: 16, body: [1, 2, 3])), [], "an ifinfomsg too short")
        XCTAssertEqual(NetlinkRouteParser.parse(good + [1, 2, 3]), [.link(index: 3, running: true)], "trailing garbage")
        XCTAssertEqual(NetlinkRouteParser.parse(message(type: 3, body: []) + good), [], "NLMSG_DONE ends the datagram")
        XCTAssertEqual(NetlinkRouteParser.parse(message(type: 4, body: [])), [.overrun])
    }

    func testTrackerCountsOnlyGainsOnWatchedLinks() {
        var tracker = LinkStateTracker(watched: [3])
        XCTAssertTrue(tracker.apply([.link(index: 3, running: true)]), "first seen running")
        XCTAssertFalse(tracker.apply([.link(index: 3, running: true)]), "no change")
        XCTAssertFalse(tracker.apply([.link(index: 3, running: false)]), "a loss is not a gain")
        XCTAssertTrue(tracker.apply([.link(index: 3, running: true)]), "carrier back")
        XCTAssertFalse(tracker.apply([.link(index: 7, running: false), .link(index: 7, running: true)]), "not watched")
        XCTAssertFalse(tracker.apply([.addressAdded(index: 7)]), "not watched")
        XCTAssertTrue(tracker.apply([.addressAdded(index: 3)]))
        XCTAssertFalse(tracker.apply([.addressRemoved(index: 3)]))
        XCTAssertTrue(tracker.apply([.overrun]), "after an overrun anything may have changed")
    }

    func testTrackerWithoutAListWatchesEveryLink() {
        var tracker = LinkStateTracker()
        XCTAssertTrue(tracker.apply([.link(index: 9, running: true)]))
        XCTAssertTrue(tracker.apply([.linkRemoved(index: 9), .link(index: 9, running: true)]), "a link re-created running")
    }
}
