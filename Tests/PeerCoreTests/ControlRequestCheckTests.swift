import Foundation
import XCTest
@testable import PeerCore
import PeerProtocol

/// Requests whose fields a decoder would blur get errors naming the field.
final class ControlRequestCheckTests: XCTestCase {
    private func check(_ line: String) -> ControlError? { ControlRequestCheck.check(Array(line.utf8)) }

    func testTable() {
        let cases: [(String, ControlErrorCode?, String?)] = [
            (#"{"v":1,"id":1,"method":"status"}"#, nil, nil),
            (#"{"v":1,"id":1,"method":"send","params":{"peer":"ab","data":"aGk=","queue":true,"extra":[1,{"x":"}"}]}}"#, nil, nil),
            (#"{"v":1e308,"id":1,"method":"status"}"#, .unsupportedVersion, "1e308"),
            (#"{"v":1.0,"id":1,"method":"status"}"#, .unsupportedVersion, "1.0"),
            (#"{"v":"1","id":1,"method":"status"}"#, .unsupportedVersion, nil),
            (#"{"v":1,"id":1,"method":"peer","params":{"peer":5}}"#, .invalidParams, "params.peer must be a string"),
            (#"{"v":1,"id":1,"method":"subscribe","params":{"since":-1}}"#, .invalidParams, "params.since must be a whole number ≥ 0, not -1"),
            (#"{"v":1,"id":1,"method":"subscribe","params":{"since":2.5}}"#, .invalidParams, "params.since"),
            (#"{"v":1,"id":1,"method":"send","params":{"queue":"yes"}}"#, .invalidParams, "params.queue must be true or false"),
            (#"{"v":1,"id":1,"method":"pairAccept","params":{"code":123456}}"#, .invalidParams, "params.code must be a string of 6 digits"),
            (#"{"v":1,"id":1,"method":"invite","params":{"timeout":"30"}}"#, .invalidParams, "params.timeout"),
            (#"{"v":1,"id":1,"method":"peers","params":[]}"#, .invalidParams, "params must be an object"),
            (#"{"v":1,"id":1,"method":"peers","params":null}"#, nil, nil),
            ("not json", nil, nil),
        ]
        for (line, code, text) in cases {
            let error = check(line)
            XCTAssertEqual(error?.code, code, line)
            if let text { XCTAssertTrue(error?.message.contains(text) == true, "\(line): \(error?.message ?? "no error")") }
        }
    }

    func testAResponseWithoutAnIDSaysNull() throws {
        let line = String(decoding: try JSONEncoder().encode(ControlResponse<EmptyResult>(id: nil, error: ControlError(.badRequest, "x"))), as: UTF8.self)
        XCTAssertTrue(line.contains(#""id":null"#), line)
    }

    func testEndpointsPrintWithBracketsForIPv6() {
        XCTAssertEqual(Endpoint(interface: "eth0", family: .ipv6, address: "fe80::1", port: 4000).hostPort, "[fe80::1%eth0]:4000")
        XCTAssertEqual(Endpoint(interface: "eth0", family: .ipv4, address: "169.254.1.2", port: 4000).hostPort, "169.254.1.2:4000")
    }
}
