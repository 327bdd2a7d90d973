import Glibc
import PeerCore

/// `app-invite-flood APP COUNT SECONDS HOLD`: invites (a session), then
/// sends COUNT `appInvite`s of app APP spread over SECONDS, each with its
/// own context, reading what comes back as it goes; holds the session HOLD
/// seconds more, and prints how many it sent and what the daemon answered
/// (issue 42, point 3: a peer flooding an app's clients with invitations).
func probeAppInviteFlood(_ connection: ProbeConnection, app: String, count: Int, spread: Double, hold: Double) throws -> String {
    let answer = try invite(connection, pairing: false)
    guard answer == "accepted" else { return "invite \(answer)" }
    var answers: [String: Int] = [:]
    func drain(_ wait: Double) throws {
        while let message = try connection.next(timeout: wait) {
            switch message {
            case .app(.accept): answers["accept", default: 0] += 1
            case .app(.decline(_, let reason, let text)): answers["decline \(reason.rawValue) (\(text))", default: 0] += 1
            case .close(let reason, let text): answers["close \(reason.rawValue): \(text)", default: 0] += 1; return
            default: continue
            }
        }
    }
    let began = clock.now
    for n in 0..<count {
        try connection.send(.app(.invite(name: app, timeoutMilliseconds: 300_000, context: Array("invitation \(n)".utf8))))
        // On schedule: the n-th goes at n / count of the spread.
        let due = spread * Double(n + 1) / Double(max(1, count))
        let ahead = due - seconds(since: began)
        // A wait costs a poll of a millisecond or more: wait only when 20 ms
        // ahead, and read at least every 100th time.
        if ahead > 0.02 || n % 100 == 0 { try drain(max(0, ahead)) }
    }
    let took = seconds(since: began)
    try drain(hold)
    let heard = answers.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
    return "sent \(count) in \((took * 10).rounded() / 10) s; answers: \(heard.isEmpty ? "none" : heard)"
}
