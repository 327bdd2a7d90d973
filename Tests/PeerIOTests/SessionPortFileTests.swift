import Foundation
import Glibc
import XCTest
@testable import PeerIO

final class SessionPortFileTests: XCTestCase {
    private var directory = ""

    override func setUp() {
        directory = NSTemporaryDirectory() + "peerd-port-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func testARestartListensOnTheSamePort() throws {
        let first = try SessionPortFile.openListener(configured: 0, stateDirectory: directory)
        XCTAssertNil(first.note)
        let port = first.listener.port
        XCTAssertEqual(SessionPortFile.load(stateDirectory: directory), port)
        first.listener.close()
        let second = try SessionPortFile.openListener(configured: 0, stateDirectory: directory)
        defer { second.listener.close() }
        XCTAssertEqual(second.listener.port, port)
        XCTAssertNil(second.note)
    }

    func testATakenPortFallsBackAndIsReplaced() throws {
        let squatter = try TCPListener(port: 0)
        defer { squatter.close() }
        try SessionPortFile.save(squatter.port, stateDirectory: directory)
        let opened = try SessionPortFile.openListener(configured: 0, stateDirectory: directory)
        defer { opened.listener.close() }
        XCTAssertNotEqual(opened.listener.port, squatter.port)
        XCTAssertTrue(opened.note?.contains("\(squatter.port) is not available") == true, opened.note ?? "no note")
        XCTAssertEqual(SessionPortFile.load(stateDirectory: directory), opened.listener.port)
    }

    func testAGarbledFileIsIgnored() throws {
        try "not a port\n".write(toFile: directory + "/" + SessionPortFile.fileName, atomically: false, encoding: .utf8)
        XCTAssertNil(SessionPortFile.load(stateDirectory: directory))
        let opened = try SessionPortFile.openListener(configured: 0, stateDirectory: directory)
        defer { opened.listener.close() }
        XCTAssertEqual(SessionPortFile.load(stateDirectory: directory), opened.listener.port)
    }

    func testAConfiguredPortIsNeitherReadNorWritten() throws {
        let probe = try TCPListener(port: 0)
        let port = probe.port
        probe.close()
        let opened = try SessionPortFile.openListener(configured: port, stateDirectory: directory)
        defer { opened.listener.close() }
        XCTAssertEqual(opened.listener.port, port)
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/" + SessionPortFile.fileName))
    }
}
