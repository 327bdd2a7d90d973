import FoundationEssentials
import Glibc
import PeerCore
import PeerKit

/// The measuring ends of the scale figure (issue 25, point 5;
/// Tests/bench/scale_lab.sh): each waits on one host until its daemon
/// lists enough of the others, or has enough paired sessions, and says
/// when, in wall-clock seconds, so the lab can compare hosts' times.
enum ScaleProbes {
    /// `wait-peers`: until `count` peers are listed and not lost.
    static func waitPeers(socket: String, count: Int, seconds: Int) throws {
        try waitUntil(socket: socket, seconds: seconds, word: "listed") { rows in rows.values.filter { !$0.lost }.count >= count }
    }

    /// `wait-sessions`: until `count` paired peers are connected.
    static func waitSessions(socket: String, count: Int, seconds: Int) throws {
        try waitUntil(socket: socket, seconds: seconds, word: "back") { rows in rows.values.filter { $0.paired && $0.state == .connected }.count >= count }
    }

    /// Subscribes, takes the list, then follows the peer events until
    /// `done` holds for the rows: says `WORD=<time>`, or `WORD=0` and
    /// exits 1 after `seconds`.
    private static func waitUntil(socket: String, seconds: Int, word: String, done: ([UUID: PeerSnapshot]) -> Bool) throws {
        let client = try ControlClient(path: socket)
        _ = try client.call(.subscribe)
        var rows: [UUID: PeerSnapshot] = [:]
        for row in try client.call(.peers).peers { rows[row.id] = row }
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !done(rows) {
            guard let (event, _) = try? client.nextEvent(deadline: deadline) else {
                Probes.say("\(word)=0 rows=\(rows.count)")
                exit(1)
            }
            if event.type == .peerRemoved, let row = event.peer {
                rows[row.id] = nil
            } else if let row = event.peer {
                rows[row.id] = row
            }
        }
        Probes.say("\(word)=\(Probes.wallClock())")
    }
}
