import Foundation
import XCTest
@testable import PeerCore
import PeerProtocol

final class ConfigFileTests: XCTestCase {
    private func run(_ text: String, _ arguments: [String] = []) throws -> DaemonConfiguration {
        guard case .run(let config) = try DaemonCommand.parse(arguments, defaultName: "h", configText: text) else {
            throw UsageError("not a run")
        }
        return config
    }

    func testEveryKeyAndOverrides() throws {
        let text = """
        # comment
        ; another
        [peerd]
        name = box
        port = 4000
        interface = eth0
        interface = eth1
        info = a=1
        auto-accept = none
        public-read = yes
        reset-trust = no
        """
        let config = try run(text)
        XCTAssertEqual(config.name, "box")
        XCTAssertEqual(config.port, 4000)
        XCTAssertEqual(config.interfaces, ["eth0", "eth1"])
        XCTAssertEqual(config.info, [TXTEntry(key: "a", value: "1")])
        XCTAssertEqual(config.autoAccept, AutoAcceptPolicy.none)
        XCTAssertTrue(config.publicRead)
        XCTAssertFalse(config.resetTrust)
        let overridden = try run(text, ["--port", "5000", "--interface", "wlan0"])
        XCTAssertEqual(overridden.port, 5000)
        XCTAssertEqual(overridden.interfaces, ["wlan0"], "a repeatable flag replaces the file's values")
        XCTAssertEqual(overridden.name, "box")
    }

    /// `[app "NAME"]` sections stand for `app-user`/`app-group`; flags and
    /// keys say the same; bad names and second reservations name their line.
    func testAppReservations() throws {
        let config = try run("""
        [app "chat"]
        user = alice
        [peerd]
        name = box
        app-group = team=staff
        [app "clip"]
        group = 1002
        """)
        XCTAssertEqual(config.name, "box")
        XCTAssertEqual(config.appReservations, [try AppName("chat"): .user("alice"), try AppName("team"): .group("staff"),
                                                try AppName("clip"): .group("1002")])
        guard case .run(let flags) = try DaemonCommand.parse(["--app-user", "notes=1001"], defaultName: "h") else { return XCTFail() }
        XCTAssertEqual(flags.appReservations, [try AppName("notes"): .user("1001")])
        let table: [(String, String)] = [
            ("[app \"Chat\"]\nuser = a", "line 1: [app \"Chat\"]: an app name has only lowercase ASCII letters, digits and hyphens; 'C' is none of them"),
            ("[app chat]\nuser = a", "line 1: expected [app \"NAME\"], got [app chat]"),
            ("[app \"chat\"]\nname = a", "line 2: unknown key 'name' in [app \"chat\"] (user, group or auto-accept)"),
            ("[app \"chat\"]\nuser = a\ngroup = b", "line 3: app 'chat' is reserved twice"),
            ("[peerd]\napp-user = chat", "line 2: app-user: --app-user 'chat': expected NAME=USER"),
        ]
        for (text, message) in table {
            XCTAssertThrowsError(try run(text), text) { XCTAssertEqual(($0 as? UsageError)?.message, message, text) }
        }
    }

    /// `[wide-area]` (issue 46) stands for the flags; a key needs a domain,
    /// and `.local` is mDNS's.
    func testTheWideAreaSection() throws {
        let config = try run("[peerd]\nname = box\n[wide-area]\ndomain = peers.example.org\nupdate-key = /etc/peerd/k\nserver = 192.0.2.53:5300\nttl = 30\n")
        XCTAssertEqual(config.wideArea, DNSName(dotted: "peers.example.org"))
        XCTAssertEqual(config.dnsUpdateKey, "/etc/peerd/k")
        XCTAssertEqual(config.dnsServer, DNSServerAddress("192.0.2.53:5300"))
        XCTAssertEqual(config.wideAreaTTL, 30)
        let table: [(String, String)] = [
            ("[wide-area]\nzone = x\n", "line 2: unknown key 'zone' in [wide-area] (domain, update-key, server, ttl or poll)"),
            ("[peerd]\ndns-update-key = /k\n", "line 2: dns-update-key: --dns-update-key and --dns-server need --wide-area DOMAIN"),
            ("[wide-area]\ndomain = office.local\n", "line 2: wide-area: --wide-area 'office.local': expected a unicast DNS domain such as peers.example.org (not .local: that is mDNS's)"),
            ("[wide-area]\ndomain = x\nserver = ns.example\n", "line 3: dns-server: --dns-server 'ns.example': expected a numeric address with an optional port (192.0.2.53, 192.0.2.53:5353, [2001:db8::53]:53)"),
        ]
        for (text, message) in table {
            XCTAssertThrowsError(try run(text), text) { XCTAssertEqual(($0 as? UsageError)?.message, message, text) }
        }
    }

    func testEveryFlagInTheHelpHasAKeyAndEveryKeyAFlag() {
        // Flags are the words starting with "--" at the start of a help line.
        let flags = Set(DaemonCommand.helpText.split(separator: "\n").compactMap { line -> String? in
            let word = line.drop { $0 == " " }.prefix { $0 != " " && $0 != "=" }
            return word.hasPrefix("--") ? String(word.dropFirst(2)) : nil
        })
        let commandLineOnly: Set<String> = ["help", "version", "config", "check-config"]
        let keys = ConfigFile.valueKeys.union(ConfigFile.switchKeys)
        XCTAssertTrue(flags.contains("max-unverified-peers"), "the scan finds flags: \(flags.sorted())")
        XCTAssertEqual(flags.subtracting(commandLineOnly).subtracting(keys), [], "flags without a config key")
        XCTAssertEqual(keys.subtracting(flags), [], "config keys without a flag in --help")
    }

    func testTheShippedFileDocumentsEveryKeyWithAValidDefault() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/peerd.conf").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for key in ConfigFile.valueKeys.union(ConfigFile.switchKeys) {
            XCTAssertTrue(text.contains("\n#\(key) = "), "docs/peerd.conf does not document '\(key)'")
        }
        // Every commented default, switched on, is itself a valid file (the
        // repeatable keys' examples are left out: they have no default).
        let defaults = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            guard line.hasPrefix("#"), line.contains(" = "),
                  let key = line.dropFirst().split(separator: " ").first,
                  ConfigFile.valueKeys.union(ConfigFile.switchKeys).contains(String(key)),
                  !ConfigFile.repeatableKeys.contains(String(key)) else { return line }
            return line.dropFirst()
        }.joined(separator: "\n")
        XCTAssertNoThrow(try run(defaults))
    }

    func testTheManPageDocumentsEveryFlag() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/peerd.8").path
        let page = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "\\-", with: "-")
        let flags = DaemonCommand.helpText.split(separator: "\n").compactMap { line -> String? in
            let word = line.drop { $0 == " " }.prefix { $0 != " " && $0 != "," }
            return word.hasPrefix("--") ? String(word) : nil
        }
        XCTAssertGreaterThan(flags.count, 20)
        for flag in flags {
            XCTAssertTrue(page.contains(flag), "peerd(8) does not document \(flag)")
        }
    }

    func testErrorsNameTheirLine() {
        let cases: [(String, String)] = [
            ("[peerd]\nbogus = 1\n", "line 2: unknown key 'bogus'"),
            ("[peerd]\n\nport = 99999\n", "line 3"),
            ("[server]\n", "line 1: unknown section"),
            ("port = 1\n", "line 1: 'port = 1' comes before the [peerd] section"),
            ("[peerd]\nport\n", "line 2: expected key = value"),
            ("[peerd]\nport = 1\nport = 2\n", "line 3: 'port' is set twice"),
            ("[peerd]\npublic-read = maybe\n", "line 2: public-read = 'maybe': expected yes or no"),
            ("[peerd]\ninfo = waytoolongkey=1\n", "line 2"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try run(text), text) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(text.debugDescription): '\(error)' lacks '\(expected)'")
            }
        }
    }

    func testCheckConfigAndConfigPath() throws {
        XCTAssertEqual(DaemonCommand.configPath(in: ["--config", "/x.conf", "--port", "1"]), "/x.conf")
        XCTAssertEqual(DaemonCommand.configPath(in: ["--config=/y.conf"]), "/y.conf")
        XCTAssertNil(DaemonCommand.configPath(in: ["--port", "1"]))
        guard case .checkConfig = try DaemonCommand.parse(["--check-config"], defaultName: "h", configText: "[peerd]\n") else {
            return XCTFail("expected checkConfig")
        }
    }
}
