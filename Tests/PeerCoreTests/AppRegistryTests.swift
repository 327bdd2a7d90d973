import XCTest
@testable import PeerCore
import PeerProtocol

/// The app registry's decisions as tables: who may take or join a name,
/// what keeps an app, and what the shell is told to do.
final class AppRegistryTests: XCTestCase {
    private let alice = ClientCredentials(pid: 1, uid: 1001, gid: 1001, groups: [])
    private let bob = ClientCredentials(pid: 2, uid: 1002, gid: 1002, groups: [2000])
    private let root = ClientCredentials(pid: 3, uid: 0, gid: 0, groups: [])

    private func name(_ text: String) -> AppName { try! AppName(text) }
    private func info(_ pairs: [String: String], _ app: String) -> AppInfo {
        try! AppInfo(pairs.sorted { $0.key < $1.key }.map { TXTEntry(key: $0.key, value: $0.value) }, for: name(app))
    }

    func testALiveAppLastsWhileAnyOfItsClientsDoesAndOnlyItsUIDMayJoin() {
        var registry = AppRegistry(baseRecordBytes: 60)
        let chat = name("chat")
        XCTAssertEqual(registry.register(chat, info: info(["room": "lobby"], "chat"), client: 1, credentials: alice), .success([.republish]))
        XCTAssertEqual(registry.txtEntries.map(\.encoded), ["apps=chat", "chat.room=lobby"])
        XCTAssertEqual(registry.register(chat, info: nil, client: 2, credentials: bob), .failure(.heldByOther(name: chat, uid: 1001)))
        XCTAssertEqual(registry.register(chat, info: nil, client: 3, credentials: alice), .success([]), "the same uid joins")
        XCTAssertEqual(registry.register(chat, info: nil, client: 4, credentials: root), .success([]), "root may register anything")
        XCTAssertEqual(registry.apps[chat]?.uid, 1001, "root joining does not take it over")
        XCTAssertEqual(registry.clientClosed(1), [])
        XCTAssertEqual(registry.clientClosed(3), [])
        XCTAssertEqual(registry.clientClosed(2), [], "a refused client held nothing")
        XCTAssertEqual(registry.clientClosed(4), [.republish, .withdrawn(chat)])
        XCTAssertTrue(registry.txtEntries.isEmpty, "no app: no apps= string")
        XCTAssertEqual(registry.register(chat, info: nil, client: 5, credentials: bob), .success([.republish]), "a withdrawn name is free")
    }

    func testADeclaredAppStaysWithoutClientsUntilItsHolderRemovesIt() {
        var registry = AppRegistry(baseRecordBytes: 60)
        let clip = name("clip")
        XCTAssertEqual(registry.declare(clip, info: nil, credentials: alice), .success([.republish, .saveDeclared]))
        XCTAssertEqual(registry.register(clip, info: nil, client: 7, credentials: alice), .success([]))
        XCTAssertEqual(registry.clientClosed(7), [], "declared: kept")
        XCTAssertEqual(registry.removeDeclared(clip, credentials: bob), .failure(.heldByOther(name: clip, uid: 1001)))
        XCTAssertEqual(registry.register(clip, info: nil, client: 8, credentials: alice), .success([]))
        XCTAssertEqual(registry.removeDeclared(clip, credentials: alice), .success([.saveDeclared]), "still live: not withdrawn")
        XCTAssertEqual(registry.removeDeclared(clip, credentials: alice), .failure(.notDeclared(clip)))
        XCTAssertEqual(registry.clientClosed(8), [.republish, .withdrawn(clip)])
        // Read back from disk: declared, with no clients.
        let back = AppRegistry(baseRecordBytes: 60, declared: [AppRegistration(name: clip, uid: 1001, info: .empty, clients: [9])])
        XCTAssertEqual(back.declared.map(\.name), [clip])
        XCTAssertEqual(back.apps[clip]?.clients, [])
    }

    func testReservationsAdmitTheirUserOrGroupAndRoot() {
        let chat = name("chat"), team = name("team")
        var registry = AppRegistry(baseRecordBytes: 60, reservations: [chat: .user(1001), team: .group(2000)])
        let table: [(AppName, ClientCredentials, AppRefusal?)] = [
            (chat, bob, .reserved(name: chat, for: "user 1001")),
            (team, alice, .reserved(name: team, for: "group 2000")),
            (team, bob, nil),                     // a supplementary group
            (chat, alice, nil),
            (chat, root, nil),
            (AppName.none, bob, nil),             // the default app is everyone's
        ]
        for (app, who, refusal) in table {
            XCTAssertEqual(registry.refusal(toUse: app, by: who), refusal, "\(app) by \(who.uid)")
        }
        XCTAssertEqual(registry.register(team, info: nil, client: 1, credentials: bob), .success([.republish]))
        XCTAssertEqual(registry.refusal(toUse: team, by: root), nil)
        XCTAssertEqual(registry.refusal(toUse: team, by: ClientCredentials(pid: 4, uid: 1003, gid: 2000, groups: [])),
                       .heldByOther(name: team, uid: 1002), "in the group, but another uid holds it")
    }

    func testInfoChangesRepublishAndLimitsGiveTheirNumbers() {
        var registry = AppRegistry(baseRecordBytes: 1200)
        let chat = name("chat")
        XCTAssertEqual(registry.register(chat, info: info(["a": "1"], "chat"), client: 1, credentials: alice), .success([.republish]))
        XCTAssertEqual(registry.register(chat, info: info(["a": "1"], "chat"), client: 1, credentials: alice), .success([]), "the same info")
        XCTAssertEqual(registry.register(chat, info: info(["a": "2"], "chat"), client: 2, credentials: alice), .success([.republish]))
        let big = info(["k": String(repeating: "v", count: 100)], "big")
        // 1200 + "apps=big,chat" (14) + "big.k=" + 100 (107) + "chat.a=2" (9)
        XCTAssertEqual(registry.register(name("big"), info: big, client: 3, credentials: root),
                       .failure(.recordFull(name: name("big"), bytes: 1330, max: 1300)), "root is held to the record, not to a share")
        XCTAssertNil(registry.apps[name("big")], "a refused registration leaves nothing")

        var full = AppRegistry(baseRecordBytes: 0)
        for i in 0..<AppRegistry.maxApps { _ = full.register(name("app\(i)"), info: nil, client: i, credentials: root) }
        XCTAssertEqual(full.register(name("one-more"), info: nil, client: 99, credentials: alice), .failure(.tooMany(max: 15, keptForReserved: 0)))
        XCTAssertLessThanOrEqual(full.txtEntries[0].encoded.utf8.count, TXTRecord.maxPairBytes)
    }

    /// Issue 42, point 2: each uid's share of the slots and of the record;
    /// root and reserved names aside; reserved names keep their slots.
    func testEachUIDHasAShareOfTheAppsAndTheRecord() {
        var registry = AppRegistry(baseRecordBytes: 60)
        for i in 0..<AppShares.appsPerUID {
            XCTAssertEqual(registry.declare(name("a\(i)"), info: nil, credentials: alice), .success([.republish, .saveDeclared]))
        }
        XCTAssertEqual(registry.register(name("a-more"), info: nil, client: 1, credentials: alice),
                       .failure(.shareFull(uid: 1001, what: "apps", holds: 5, share: 5)))
        XCTAssertEqual(registry.register(name("b0"), info: nil, client: 2, credentials: bob), .success([.republish]),
                       "a second uid registers while the first holds its whole share")
        XCTAssertEqual(registry.declare(name("b1"), info: info(["k": String(repeating: "w", count: 20)], "b1"), credentials: bob),
                       .success([.republish, .saveDeclared]))
        XCTAssertEqual(registry.register(name("r0"), info: nil, client: 3, credentials: root), .success([.republish]), "root has no share")
        // The record's bytes: a third of the 1240 left for apps (413) each.
        XCTAssertEqual(registry.shares.bytesPerUID, 413)
        let value = String(repeating: "v", count: 190)
        let wide = info(["k": value, "l": value], "b2")
        // b0 (its name and a comma), b1 (that and 1 + 25), b2 (that and two strings of 1 + 5 + 190).
        XCTAssertEqual(registry.register(name("b2"), info: wide, client: 4, credentials: bob),
                       .failure(.shareFull(uid: 1002, what: "bytes of the TXT record", holds: 3 + 3 + 26 + 3 + 2 * 196, share: 413)))
        XCTAssertEqual(AppRefusal.shareFull(uid: 1002, what: "apps", holds: 5, share: 5).description,
                       "uid 1002 holds 5 apps, its share of this host's is 5; remove one of its apps (peerctl apps) first")
        XCTAssertTrue(AppRefusal.shareFull(uid: 1, what: "apps", holds: 5, share: 5).isPermission)

        // Reserved names: their holder's share does not count them, and
        // their slots are kept while nobody registers them.
        let board = name("board")
        var kept = AppRegistry(baseRecordBytes: 60, reservations: [board: .user(1001)])
        for i in 0..<AppShares.appsPerUID { _ = kept.declare(name("a\(i)"), info: nil, credentials: alice) }
        XCTAssertEqual(kept.register(board, info: nil, client: 1, credentials: alice), .success([.republish]), "a reservation is not in the share")
        _ = kept.clientClosed(1)
        for i in 0..<AppRegistry.maxApps - 6 { XCTAssertEqual(kept.register(name("r\(i)"), info: nil, client: 10 + i, credentials: root), .success([.republish])) }
        XCTAssertEqual(kept.register(name("last"), info: nil, client: 99, credentials: root), .failure(.tooMany(max: 15, keptForReserved: 1)),
                       "the last slot is board's")
        XCTAssertEqual(kept.register(board, info: nil, client: 100, credentials: alice), .success([.republish]), "and board still gets it")
    }

    func testInfoRules() {
        let table: [([TXTEntry], AppInfoProblem?)] = [
            ([TXTEntry(key: "room", value: "x")], nil),
            ([TXTEntry(key: "", value: "x")], .emptyKey("=x")),
            ([TXTEntry(key: "abcdefghij", value: "x")], .keyTooLong(key: "abcdefghij", characters: 10)),
            ([TXTEntry(key: "a b", value: "x")], .keyInvalid("a b")),
            ([TXTEntry(key: "Room", value: "x"), TXTEntry(key: "room", value: "y")], .duplicateKey("room")),
            ([TXTEntry(key: "room", value: "a\u{1B}[2Jb")], .valueInvalid(key: "room")),    // ESC (issue 42)
            ([TXTEntry(key: "room", value: "ding\u{07}")], .valueInvalid(key: "room")),     // BEL
            ([TXTEntry(key: "room", value: "x\u{7F}")], .valueInvalid(key: "room")),        // DEL
            ([TXTEntry(key: "room", value: "x\u{85}")], .valueInvalid(key: "room")),        // C1 NEL
            ([TXTEntry(key: "room", value: "café lobby")], nil),
            ([TXTEntry(key: "k", value: String(repeating: "v", count: 250))], .pairTooLong(key: "k", bytes: 257)),
            ((0..<4).map { TXTEntry(key: "k\($0)", value: String(repeating: "v", count: 100)) }, .tooLong(bytes: 436)),
        ]
        for (entries, problem) in table {
            do {
                _ = try AppInfo(entries, for: name("chat"))
                XCTAssertNil(problem, "\(entries)")
            } catch {
                XCTAssertEqual(error, problem, "\(entries)")
            }
        }
    }
}
