@testable import PeerCore
@testable import PeerTools
import XCTest

final class DaemonCommandTests: XCTestCase {
    func testDefaults() throws {
        guard case .run(let config) = try DaemonCommand.parse([], defaultName: "myhost") else { return XCTFail() }
        XCTAssertEqual(config.name, "myhost")
        XCTAssertEqual(config.serviceType, "_peerd._tcp")
        XCTAssertEqual(config.port, 0)
        XCTAssertEqual(config.socketPath, "/run/peerd/peerd.sock")
        XCTAssertEqual(config.maxPeers, 256)
        XCTAssertEqual(config.interfaces, [])
    }

    func testEveryFlag() throws {
        let args = ["--name", "box", "--service-type=_demo._tcp", "--info", "a=1", "--info", "b=2", "--state-dir", "/s",
                    "--interface", "eth0", "--interface", "eth1", "--port", "4242", "--socket", "/tmp/x.sock", "--max-peers", "9",
                    "--event-history", "10", "--subscriber-queue", "8192", "--log-level", "debug"]
        guard case .run(let c) = try DaemonCommand.parse(args, defaultName: "h") else { return XCTFail() }
        XCTAssertEqual(c.name, "box")
        XCTAssertEqual(c.serviceType, "_demo._tcp")
        XCTAssertEqual(c.info, [TXTEntry(key: "a", value: "1"), TXTEntry(key: "b", value: "2")])
        XCTAssertEqual(c.stateDirectory, "/s")
        XCTAssertEqual(c.interfaces, ["eth0", "eth1"])
        XCTAssertEqual(c.port, 4242)
        XCTAssertEqual(c.socketPath, "/tmp/x.sock")
        XCTAssertEqual(c.maxPeers, 9)
        XCTAssertEqual(c.eventHistory, 10)
        XCTAssertEqual(c.subscriberQueueBytes, 8192)
        XCTAssertEqual(c.logLevel, .debug)
    }

    func testPairingFlags() throws {
        guard case .run(let c) = try DaemonCommand.parse(["--auto-accept", "all", "--auto-connect", "no", "--reset-trust", "--pairing-timeout", "30"],
                                                         defaultName: "h") else { return XCTFail() }
        XCTAssertEqual(c.autoAccept, .all)
        XCTAssertFalse(c.autoConnect)
        XCTAssertTrue(c.resetTrust)
        XCTAssertEqual(c.pairingTimeout, 30)
        guard case .run(let d) = try DaemonCommand.parse([], defaultName: "h") else { return XCTFail() }
        XCTAssertEqual(d.autoAccept, .paired)
        XCTAssertTrue(d.autoConnect)
        XCTAssertThrowsError(try DaemonCommand.parse(["--auto-accept", "some"], defaultName: "h"))
        XCTAssertThrowsError(try DaemonCommand.parse(["--auto-connect", "maybe"], defaultName: "h"))
    }

    func testHelpListsEveryFlag() throws {
        XCTAssertEqual(try DaemonCommand.parse(["--help"], defaultName: "h"), .help)
        for flag in ["--name", "--service-type", "--info", "--state-dir", "--interface", "--port", "--socket", "--max-peers",
                     "--event-history", "--subscriber-queue", "--log-level", "--version", "--help", "--max-message",
                     "--max-sessions", "--auto-accept", "--auto-connect", "--pairing-timeout", "--reset-trust", "--inbox-size"] {
            XCTAssertTrue(DaemonCommand.helpText.contains(flag), "help lacks \(flag)")
        }
    }

    func testErrorsNameTheProblem() {
        let cases: [([String], String)] = [
            (["--port", "70000"], "--port"),
            (["--port"], "needs a value"),
            (["--service-type", "peerd"], "_name._tcp"),
            (["--info", "waytoolongkey=1"], "at most 9"),
            (["--info", "novalue"], "key=value"),
            (["--log-level", "loud"], "--log-level"),
            (["--frobnicate"], "unknown option"),
            (["stray"], "unexpected argument"),
            (["--help=yes"], "takes no value"),
            (["--inbox-size", "65536"], "cannot hold one --max-message message"),
        ]
        for (args, expected) in cases {
            XCTAssertThrowsError(try DaemonCommand.parse(args, defaultName: "h"), "\(args)") { error in
                XCTAssertTrue("\(error)".contains(expected), "\(args): '\(error)' lacks '\(expected)'")
            }
        }
    }

    func testServiceTypeValidation() {
        XCTAssertTrue(DaemonConfiguration.isValidServiceType("_peerd._tcp"))
        XCTAssertTrue(DaemonConfiguration.isValidServiceType("_x-y._udp"))
        XCTAssertFalse(DaemonConfiguration.isValidServiceType("_peerd._sctp"))
        XCTAssertFalse(DaemonConfiguration.isValidServiceType("_averyveryverylongname._tcp"))
        XCTAssertFalse(DaemonConfiguration.isValidServiceType("peerd._tcp"))
    }
}

final class PeerctlInvocationTests: XCTestCase {
    func testCommandsAndGlobalOptions() throws {
        XCTAssertEqual(try PeerctlInvocation.parse(["status"]).command, .status)
        let parsed = try PeerctlInvocation.parse(["--socket", "/x", "--json", "peer", "abc"])
        XCTAssertEqual(parsed, PeerctlInvocation(socket: "/x", json: true, command: .peer("abc")))
        XCTAssertEqual(try PeerctlInvocation.parse(["watch", "--since", "12", "--json"]).command, .watch(since: 12))
        XCTAssertEqual(try PeerctlInvocation.parse(["peers", "--help"]).command, .help("peers"))
        XCTAssertEqual(try PeerctlInvocation.parse(["--help"]).command, .help(nil))
    }

    /// `--app` anywhere on the line, checked by the name rule; `apps`
    /// with its two subcommands and `--info`.
    func testAppOptionAndAppsCommands() throws {
        XCTAssertEqual(try PeerctlInvocation.parse(["--app", "chat", "recv"]).app, "chat")
        XCTAssertEqual(try PeerctlInvocation.parse(["recv", "--app", "chat"]).app, "chat")
        XCTAssertNil(try PeerctlInvocation.parse(["recv"]).app)
        XCTAssertThrowsError(try PeerctlInvocation.parse(["--app", "Chat", "recv"])) {
            XCTAssertTrue("\($0)".contains("lowercase ASCII letters"), "\($0)")
        }
        XCTAssertEqual(try PeerctlInvocation.parse(["apps"]).command, .apps)
        XCTAssertEqual(try PeerctlInvocation.parse(["apps", "add", "clip", "--info", "room=lobby", "--info", "v=2"]).command,
                       .appsAdd(name: "clip", info: ["room=lobby", "v=2"]))
        XCTAssertEqual(try PeerctlInvocation.parse(["apps", "remove", "clip"]).command, .appsRemove("clip"))
        XCTAssertThrowsError(try PeerctlInvocation.parse(["apps", "add", "clip", "--info", "novalue"]))
        XCTAssertThrowsError(try PeerctlInvocation.parse(["apps", "drop", "clip"]))
        XCTAssertThrowsError(try PeerctlInvocation.parse(["apps", "add", "-x-"]))
        XCTAssertNotNil(PeerctlInvocation.help(for: "apps"))
    }

    /// `send` to several peers: PEER PEER... TEXT, or --all TEXT.
    func testGroupSend() throws {
        XCTAssertEqual(try PeerctlInvocation.parse(["send", "a", "b", "c", "hi"]).command, .groupSend(peers: ["a", "b", "c"], text: "hi", queue: false))
        XCTAssertEqual(try PeerctlInvocation.parse(["send", "--all", "hi", "--queue"]).command, .groupSend(peers: nil, text: "hi", queue: true))
        XCTAssertEqual(try PeerctlInvocation.parse(["send", "a", "hi"]).command, .send(peer: "a", text: "hi", lines: false))
        XCTAssertThrowsError(try PeerctlInvocation.parse(["send", "--all", "a", "hi"]))
        XCTAssertThrowsError(try PeerctlInvocation.parse(["send", "a", "b", "-", "--lines"]))
    }

    func testSessionCommands() throws {
        XCTAssertEqual(try PeerctlInvocation.parse(["invite", "b", "--context", "hi", "--timeout", "5", "--wait"]).command,
                       .invite(peer: "b", context: "hi", timeout: 5, wait: true))
        XCTAssertEqual(try PeerctlInvocation.parse(["invitations"]).command, .invitations)
        XCTAssertEqual(try PeerctlInvocation.parse(["accept", "ab12"]).command, .accept("ab12"))
        XCTAssertEqual(try PeerctlInvocation.parse(["decline", "ab12"]).command, .decline("ab12"))
        XCTAssertEqual(try PeerctlInvocation.parse(["disconnect", "b"]).command, .disconnect("b"))
        XCTAssertEqual(try PeerctlInvocation.parse(["send", "b", "-", "--lines"]).command, .send(peer: "b", text: "-", lines: true))
        XCTAssertEqual(try PeerctlInvocation.parse(["recv", "--from", "b", "--count", "3"]).command, .recv(from: "b", count: 3))
        XCTAssertEqual(try PeerctlInvocation.parse(["inbox", "--from", "b", "--max", "5"]).command, .inbox(from: "b", max: 5))
        XCTAssertEqual(try PeerctlInvocation.parse(["take"]).command, .take(from: nil, count: nil))
        XCTAssertEqual(try PeerctlInvocation.parse(["--json", "take", "--count", "2"]).command, .take(from: nil, count: 2))
        for bad in [["inbox", "--count", "2"], ["take", "--max", "2"], ["take", "x"], ["inbox", "--max", "0"]] {
            XCTAssertThrowsError(try PeerctlInvocation.parse(bad), "\(bad)")
        }
        XCTAssertEqual(try PeerctlInvocation.parse(["wait", "b", "--state", "connected", "--timeout", "2"]).command,
                       .wait(peer: "b", state: .connected, timeout: 2))
        for bad in [["invite"], ["send", "b"], ["send", "b", "text", "--lines"], ["wait", "b"], ["wait", "b", "--state", "up"],
                    ["recv", "--count", "0"], ["invite", "b", "--timeout", "-1"], ["accept"], ["peers", "--wait"]] {
            XCTAssertThrowsError(try PeerctlInvocation.parse(bad), "\(bad)")
        }
    }

    func testPairingCommands() throws {
        XCTAssertEqual(try PeerctlInvocation.parse(["pair", "b"]).command, .pair("b"))
        XCTAssertEqual(try PeerctlInvocation.parse(["pair-accept", "ab", "--code", "012345"]).command, .pairAccept(id: "ab", code: "012345"))
        XCTAssertEqual(try PeerctlInvocation.parse(["pair-accept", "ab"]).command, .pairAccept(id: "ab", code: nil))
        XCTAssertEqual(try PeerctlInvocation.parse(["pair-reject", "ab"]).command, .pairReject("ab"))
        XCTAssertEqual(try PeerctlInvocation.parse(["pairings"]).command, .pairings)
        XCTAssertEqual(try PeerctlInvocation.parse(["paired"]).command, .paired)
        XCTAssertEqual(try PeerctlInvocation.parse(["unpair", "b"]).command, .unpair("b"))
        XCTAssertEqual(try PeerctlInvocation.parse(["queue"]).command, .queue)
        XCTAssertEqual(try PeerctlInvocation.parse(["send", "b", "hi", "--queue"]).command, .send(peer: "b", text: "hi", lines: false, queue: true))
        for bad in [["pair-accept", "ab", "--code", "12345"], ["pair-accept", "ab", "--code", "abcdef"], ["pair"], ["unpair"], ["queue", "x"]] {
            XCTAssertThrowsError(try PeerctlInvocation.parse(bad), "\(bad)")
        }
    }

    func testUsageErrors() {
        for args in [[], ["fly"], ["peer"], ["peer", "a", "b"], ["peers", "extra"], ["status", "--since", "1"], ["watch", "--since", "x"]] {
            XCTAssertThrowsError(try PeerctlInvocation.parse(args), "\(args)")
        }
    }

    func testEveryCommandHasHelp() {
        for name in PeerctlCommand.names {
            XCTAssertNotNil(PeerctlInvocation.help(for: name), name)
        }
        XCTAssertNil(PeerctlInvocation.help(for: "fly"))
    }
}
