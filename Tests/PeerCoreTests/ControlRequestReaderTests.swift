import Foundation
@testable import PeerCore
import XCTest
import PeerProtocol

/// ``ControlRequestReader`` against the full way (``ControlRequestCheck``
/// then `JSONDecoder`): whatever line it reads, it reads as the full way
/// does, and the check has nothing to say about it.
final class ControlRequestReaderTests: XCTestCase {
    private func full(_ line: [UInt8]) -> ControlRequest? {
        guard ControlRequestCheck.check(line) == nil else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(ControlRequest.self, from: Data(line))
    }

    /// The reader's answer is nil or the full way's.
    private func assertAgrees(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        let bytes = Array(text.utf8)
        guard let fast = ControlRequestReader.read(bytes) else { return }
        XCTAssertNil(ControlRequestCheck.check(bytes), "the check passes what the reader reads: \(text)", file: file, line: line)
        XCTAssertEqual(fast, full(bytes), "read as the full way reads it: \(text)", file: file, line: line)
    }

    private let covered = [
        #"{"v":1,"id":1,"method":"send","params":{"peer":"host2","data":"WlpaWlpa"}}"#,
        #"{"v":1,"id":"a-b","method":"send","params":{"peer":"e621e1f8","data":"AQID","queue":true,"app":"chat"}}"#,
        #" { "method" : "subscribe" , "id" : -7 , "v" : 1 , "params" : { "take" : true , "count" : 10 , "since" : 18446744073709551615 } } "#,
        #"{"v":1,"id":9223372036854775807,"method":"peers"}"#,
        #"{"v":1,"id":-9223372036854775808,"method":"status","params":null}"#,
        #"{"v":1,"id":0,"method":"channel","params":{"peer":"h","receive":false,"opened":true,"app":null}}"#,
        #"{"v":1,"id":2,"method":"send","params":{"all":true,"data":"","more":false}}"#,
        #"{"v":1,"id":3,"method":"add","params":{"address":"fe80::1%eth0","port":7717,"name":"x"}}"#,
        #"{"v":1,"id":4,"method":"inbox","params":{"max":0,"offset":5,"transfer":"t","pairing":"p","code":"123456","invitation":"i","context":"héllo ✓","contextData":"AA=="}}"#,
        #"{"v":1,"id":5,"method":"nosuchmethod","params":{}}"#,
    ]

    private let leftToTheFullWay = [
        #"{"v":1,"id":1,"method":"send","params":{"peer":"a\/b","data":"AQID"}}"#,   // an escape
        #"{"v":1.0,"id":1,"method":"peers"}"#,                                        // v as a float
        #"{"v":2,"id":1,"method":"peers"}"#,                                          // another version
        #"{"v":1,"id":1.5,"method":"peers"}"#,                                        // a float id
        #"{"v":1,"id":9223372036854775808,"method":"peers"}"#,                        // an id past Int64
        #"{"v":1,"id":01,"method":"peers"}"#,                                         // a leading zero
        #"{"v":1,"id":1,"method":"invite","params":{"peer":"p","timeout":5}}"#,       // a number of seconds
        #"{"v":1,"id":1,"method":"send","params":{"peers":["a","b"],"data":"AA=="}}"#, // an array
        #"{"v":1,"id":1,"method":"send","params":{"peer":5}}"#,                        // a wrong type
        #"{"v":1,"id":1,"method":"subscribe","params":{"since":-1}}"#,                 // a negative count
        #"{"v":1,"id":1,"method":"peers","extra":true}"#,                              // an unknown member
        #"{"v":1,"id":1,"method":"peers","params":{"unknown":1}}"#,                    // an unknown parameter
        #"{"v":1,"id":1,"id":2,"method":"peers"}"#,                                    // a member twice
        #"{"v":1,"id":1,"method":"send","params":{"data":"a","data":"b"}}"#,           // a parameter twice
        #"{"v":1,"method":"peers"}"#,                                                  // no id
        #"{"v":1,"id":1,"method":"peers"} x"#,                                         // trailing text
        #"{"v":1,"id":1,"method":"peers""#,                                            // cut short
        #"{"v":1,"id":1,"method":"pe\#u{01}ers"}"#,                                    // a control character
        #"[1]"#, "", "null",
    ]

    func testCoveredLinesReadAsTheFullWayReadsThem() {
        for text in covered {
            let bytes = Array(text.utf8)
            let fast = ControlRequestReader.read(bytes)
            XCTAssertNotNil(fast, "covered: \(text)")
            XCTAssertNotNil(full(bytes), "the full way reads it too: \(text)")
            assertAgrees(text)
        }
        let send = ControlRequestReader.read(Array(covered[0].utf8))
        XCTAssertEqual(send?.method, "send")
        XCTAssertEqual(send?.params?.peer, "host2")
        XCTAssertEqual(send?.params?.data, "WlpaWlpa")
        XCTAssertEqual(send?.id, .number(1))
    }

    func testOtherLinesAreLeftToTheFullWay() {
        for text in leftToTheFullWay {
            XCTAssertNil(ControlRequestReader.read(Array(text.utf8)), "left to the full way: \(text)")
        }
    }

    /// Every one-byte change of the covered lines (a byte dropped, or
    /// replaced by a JSON-significant one): the reader agrees or declines.
    func testMutationsNeverReadDifferently() {
        let replacements = Array(#"{}[]":,\ 0-1.e"tn"#.utf8) + [0x00, 0x0A, 0xC3, 0xFF]
        var checked = 0
        for text in covered + leftToTheFullWay {
            let bytes = Array(text.utf8)
            for i in bytes.indices {
                var dropped = bytes
                dropped.remove(at: i)
                assertAgrees(String(decoding: dropped, as: UTF8.self))
                if let fast = ControlRequestReader.read(dropped) { XCTAssertEqual(fast, full(dropped)) }
                for byte in replacements {
                    var changed = bytes
                    changed[i] = byte
                    if let fast = ControlRequestReader.read(changed) {
                        XCTAssertNil(ControlRequestCheck.check(changed), String(decoding: changed, as: UTF8.self))
                        XCTAssertEqual(fast, full(changed), String(decoding: changed, as: UTF8.self))
                        checked += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 100, "some mutations stay covered")
    }
}
