import XCTest
@testable import PeerCore

/// The datagram path's two messages inside the session (protocol.md §11),
/// which the feature reads from the session's ``WireMessage/feature(type:body:)``.
final class DatagramSessionMessageTests: XCTestCase {
    func testTheBytesArePinned() {
        // datagramPath: index u32, port u16.
        XCTAssertEqual(WireCodec.encode(DatagramSessionMessage.path(index: 0x0A0B_0C0D, port: 46_201).wire),
                       [0x01, 0x30, 0x0A, 0x0B, 0x0C, 0x0D, 0xB4, 0x79])
        // datagramFrame: app_len u8, app, data.
        XCTAssertEqual(WireCodec.encode(DatagramSessionMessage.frame(app: "chat", data: [0x68, 0x69]).wire),
                       [0x01, 0x31, 0x04, 0x63, 0x68, 0x61, 0x74, 0x68, 0x69])
        XCTAssertEqual(DatagramSessionMessage.pathType, 0x30)
        XCTAssertEqual(DatagramSessionMessage.frameType, 0x31)
        XCTAssertEqual(DatagramSessionMessage.types, [0x30, 0x31])
    }

    func testEachRoundTripsThroughTheSessionCodec() throws {
        let messages: [DatagramSessionMessage] = [
            .path(index: 0xDEAD_BEEF, port: 0), .path(index: 1, port: 65_535),
            .frame(app: "", data: []), .frame(app: "chat", data: [UInt8](repeating: 7, count: 1_196)),
        ]
        for message in messages {
            guard case .feature(let type, let body) = try WireCodec.decode(WireCodec.encode(message.wire)) else {
                return XCTFail("\(message) is not a feature's message")
            }
            XCTAssertEqual(try DatagramSessionMessage.decode(type: type, body: body), message)
        }
    }

    func testMalformedBodiesAreTypedErrors() {
        let cases: [(UInt8, [UInt8], WireError)] = [
            (0x30, [0, 0, 0, 1, 0], .truncated("datagramPath port")),
            (0x30, [0, 0, 0, 1, 0, 1, 9], .trailingBytes("message type 0x30")),
            (0x31, [16] + [UInt8](repeating: 0x61, count: 16), .fieldTooLong("datagramFrame app", 16)),
            (0x31, [0] + [UInt8](repeating: 0, count: 1_201), .fieldTooLong("datagramFrame data", 1_201)),
            (0x31, [4, 0x61], .truncated("datagramFrame app")),
            (0x33, [], .unknownType(0x33)),
        ]
        for (type, body, expected) in cases {
            XCTAssertThrowsError(try DatagramSessionMessage.decode(type: type, body: body), "\(type) \(body)") {
                XCTAssertEqual($0 as? WireError, expected, "\(type) \(body)")
            }
        }
    }

    /// Both need an accepted session; an index is never 0, a port may be.
    func testWhenEachMayCome() {
        let table: [(String, DatagramSessionMessage, Bool, String?)] = [
            ("a path", .path(index: 9, port: 7717), true, nil),
            ("a path that is off", .path(index: 9, port: 0), true, nil),
            ("a path with index 0 (issue 42)", .path(index: 0, port: 7717), true, "a datagramPath with index 0"),
            ("a path before acceptance", .path(index: 9, port: 7717), false, "a datagramPath outside an accepted session"),
            ("a frame", .frame(app: "chat", data: [1]), true, nil),
            ("a frame before acceptance", .frame(app: "", data: [1]), false, "a datagramFrame outside an accepted session"),
        ]
        for (name, message, accepted, expected) in table {
            XCTAssertEqual(message.violation(canSendData: accepted), expected, name)
        }
    }
}
