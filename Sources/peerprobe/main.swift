import FoundationEssentials
import Glibc
import PeerCore
import PeerIO

// peerprobe: a hostile peer for the lab. It speaks peerd's wire protocol
// with keys of its own and misbehaves in one chosen way, then prints what
// the daemon did. Tests use it; it is no part of a normal install.

let usage = """
usage: peerprobe MODE ADDRESS PORT [ARG...]
modes:
  ping-flood SECONDS [invite|accepted]
                               handshake (and invite, or invite and wait for the accept),
                               then send pings without reading
  pairing-data                 invite with the pairing flag, then send application data
  pairing-idle                 invite with the pairing flag, then send nothing
  idle SECONDS                 connect and send nothing
  throwaway COUNT              COUNT handshakes, each with a fresh key, closed at once
  hold COUNT SECONDS [pairing] open COUNT invited sessions and hold them
  bad-length                   a zero frame length in the same write as handshake message 3
  bad-flags                    an invite with an undefined flag bit
  offer NAME...                invite, offer a 5-byte file per NAME (\\xHH escapes), send the accepted ones
                               (mode $PROBE_MODE, octal, default 644; $PROBE_BAD_HASH: a wrong block hash)
  offer-only FLOW WAIT SPEC... invite, offer SPEC (NAME:SIZE:MODE, or many:COUNT:NAMELEN) under transfer id
                               FLOW, print the answer within WAIT s, send no bytes and hang up
                               ($PROBE_UNFINISHED: the list never ends; $PROBE_OFFERS=N: N offers of it)
  app-invite-flood APP COUNT SECONDS HOLD
                               invite, then COUNT appInvites of APP over SECONDS; hold HOLD s; print the answers
Keys are fresh each run, or kept in $PROBE_KEY_FILE (the same peer every run).
Prints one line of results; exits 0 unless the probe itself failed.
"""

func say(_ text: String) { print(text); fflush(nil) }
func complain(_ text: String) { let bytes = Array(text.utf8); _ = write(2, bytes, bytes.count) }

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3, let port = UInt16(arguments[2]) else {
    complain(usage)
    exit(2)
}
let (mode, address) = (arguments[0], arguments[1])
let extra = Array(arguments.dropFirst(3))
try? Sodium.initialize()
signal(SIGPIPE, SIG_IGN)
let clock = ContinuousClock()

func seconds(since start: ContinuousClock.Instant) -> Double {
    let d = start.duration(to: clock.now)
    return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

func invite(_ connection: ProbeConnection, pairing: Bool) throws -> String {
    try connection.send(.invite(name: "probe", context: [], timeoutMilliseconds: 10_000, pairing: pairing))
    while let message = try connection.next(timeout: 10) {
        switch message {
        case .accept: return "accepted"
        case .decline(let reason, let text): return "declined \(reason.rawValue): \(text)"
        case .close(let reason, let text): return "closed \(reason.rawValue): \(text)"
        default: continue
        }
    }
    return "closed"
}

do {
    switch mode {
    case "ping-flood":
        let limit = Double(extra.first ?? "10") ?? 10
        let connection = try ProbeConnection(address: address, port: port)
        _ = try connection.handshake()
        var accepted = "no"
        switch extra.dropFirst().first {
        case "invite": try connection.send(.invite(name: "probe", context: [], timeoutMilliseconds: 300_000, pairing: false))
        // An accepted session: everything past this point is application
        // traffic, with the bounds of a session a user let in.
        case "accepted":
            let answer = try invite(connection, pairing: false)
            accepted = answer == "accepted" ? "yes" : "no (\(answer))"
        default: break
        }
        let start = clock.now
        var sent = 0
        var closed = false
        while seconds(since: start) < limit {
            do {
                if try connection.trySend(.ping(UInt64(sent))) { sent += 1 } else { usleep(1000) }
            } catch {
                closed = true
                break
            }
        }
        say("pings \(sent) closed \(closed ? "yes" : "no") after \(Int(seconds(since: start))) s accepted \(accepted)")
    case "pairing-data":
        let connection = try ProbeConnection(address: address, port: port)
        _ = try connection.handshake()
        let answer = try invite(connection, pairing: true)
        guard answer == "accepted" else { say("invite \(answer)"); exit(0) }
        try connection.send(.data(more: false, bytes: Array("smuggled".utf8)))
        var outcome = "no close"
        while let message = try connection.next(timeout: 5) {
            if case .close(let reason, let text) = message { outcome = "close \(reason.rawValue): \(text)"; break }
        }
        say("invite accepted; after data: \(outcome)")
    case "pairing-idle":
        let connection = try ProbeConnection(address: address, port: port)
        _ = try connection.handshake()
        let answer = try invite(connection, pairing: true)
        guard answer == "accepted" else { say("invite \(answer)"); exit(0) }
        let start = clock.now
        var outcome = "still open"
        while seconds(since: start) < 30 {
            guard let message = try? connection.next(timeout: 30) else { outcome = "closed"; break }
            if case .close(let reason, let text) = message { outcome = "close \(reason.rawValue): \(text)"; break }
        }
        say("invite accepted; \(outcome) after \(Int(seconds(since: start).rounded())) s")
    case "bad-length", "bad-flags":
        let connection = try ProbeConnection(address: address, port: port)
        if mode == "bad-length" {
            _ = try connection.handshake(trailing: [0, 0])
        } else {
            _ = try connection.handshake()
            var invite = WireCodec.encode(.invite(name: "probe", context: [], timeoutMilliseconds: 10_000))
            invite[6] = 0x04
            try connection.sendPlaintext(invite)
        }
        var outcome = "closed without a close message"
        while let message = try? connection.next(timeout: 5) {
            if case .close(let reason, let text) = message { outcome = "close \(reason.rawValue): \(text)"; break }
        }
        say(outcome)
    case "offer":
        let connection = try ProbeConnection(address: address, port: port)
        _ = try connection.handshake()
        say(try probeOffer(connection, names: extra))
    case "offer-only":
        guard extra.count >= 3, let wait = Double(extra[1]) else { throw ProbeError("offer-only FLOW WAIT SPEC...") }
        let connection = try ProbeConnection(address: address, port: port)
        _ = try connection.handshake()
        say(try probeOfferOnly(connection, flow: extra[0], wait: wait, specs: Array(extra.dropFirst(2))))
    case "app-invite-flood":
        guard extra.count == 4, let count = Int(extra[1]), let spread = Double(extra[2]), let hold = Double(extra[3]) else {
            throw ProbeError("app-invite-flood APP COUNT SECONDS HOLD")
        }
        let connection = try ProbeConnection(address: address, port: port)
        _ = try connection.handshake()
        say(try probeAppInviteFlood(connection, app: extra[0], count: count, spread: spread, hold: hold))
    case "idle":
        let limit = Double(extra.first ?? "10") ?? 10
        let connection = try ProbeConnection(address: address, port: port)
        let start = clock.now
        let closed = connection.closedByPeer(timeout: limit)
        say(closed ? "closed after \((seconds(since: start) * 10).rounded() / 10) s" : "open after \(Int(limit)) s")
    case "throwaway":
        let count = Int(extra.first ?? "1") ?? 1
        var done = 0
        for _ in 0..<count {
            guard let connection = try? ProbeConnection(address: address, port: port), (try? connection.handshake()) != nil else { continue }
            try? connection.send(.close(reason: .closedLocally, text: ""))
            done += 1
        }
        say("handshakes \(done) of \(count)")
    case "hold":
        let count = Int(extra.first ?? "1") ?? 1
        let limit = Double(extra.dropFirst().first ?? "10") ?? 10
        let pairing = extra.dropFirst(2).first == "pairing"
        var held: [ProbeConnection] = []
        var outcomes: [String: Int] = [:]
        for _ in 0..<count {
            guard let connection = try? ProbeConnection(address: address, port: port) else { outcomes["refused", default: 0] += 1; continue }
            guard (try? connection.handshake()) != nil else { outcomes["handshake failed", default: 0] += 1; continue }
            try connection.send(.invite(name: "probe", context: [], timeoutMilliseconds: 300_000, pairing: pairing))
            held.append(connection)
        }
        say("holding \(held.count) \(outcomes.map { "\($0.key) \($0.value)" }.sorted().joined(separator: " "))")
        usleep(UInt32(limit * 1_000_000))
    default:
        complain(usage)
        exit(2)
    }
} catch {
    say("probe failed: \(error)")
    exit(1)
}
