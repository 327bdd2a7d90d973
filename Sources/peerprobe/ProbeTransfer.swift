import PeerCore
import PeerIO

/// `offer NAME...`: invites, then offers one 5-byte file per NAME (`\xHH`
/// escapes allowed, for control characters), sends the accepted ones, and
/// prints each verdict and how the transfer ended. A sender that does not
/// check its names, as a hostile peer would.
func probeOffer(_ connection: ProbeConnection, names: [String]) throws -> String {
    let answer = try invite(connection, pairing: false)
    guard answer == "accepted" else { return "invite \(answer)" }
    let flow = FlowID(bytes: Sodium.randomBytes(16))!
    let files = names.map { OfferedFile(name: unescape($0), size: 5, mode: 0o644, mtime: 1_764_460_800) }
    try connection.send(.bulk(.offer(flow, more: false, totalFiles: UInt32(files.count), totalBytes: UInt64(5 * files.count), files: files)))
    var verdicts: [UInt32: FileVerdict] = [:]
    while let message = try connection.next(timeout: 10) {
        if case .bulk(.answer(_, let more, let part)) = message {
            for entry in part { verdicts[entry.file] = entry.verdict }
            if !more { break }
        } else if case .bulk(.cancel(_, let reason, let text)) = message {
            return "cancelled \(reason.rawValue): \(text)"
        }
    }
    let words = names.indices.map { "\(names[$0])=\(verdicts[UInt32($0)]?.word ?? "declined")" }
    for (index, verdict) in verdicts.sorted(by: { $0.key < $1.key }) where verdict == .accepted {
        let bytes = Array("probe".utf8)
        let hash = Blake2b.hash(bytes)
        try connection.send(.bulk(.chunk(flow, file: index, offset: 0, bytes: bytes)))
        try connection.send(.bulk(.block(flow, file: index, block: 0, hash: hash)))
        try connection.send(.bulk(.fileEnd(flow, file: index, hash: Blake2b.hash(hash))))
    }
    var end = "no end"
    while let message = try connection.next(timeout: 10) {
        if case .bulk(.transferDone) = message { end = "done"; break }
        if case .bulk(.cancel(_, let reason, let text)) = message { end = "cancelled \(reason.rawValue): \(text)"; break }
    }
    return words.joined(separator: " ") + " -> " + end
}

/// `a\x01b` → the bytes a, 0x01, b.
private func unescape(_ text: String) -> [UInt8] {
    var out: [UInt8] = []
    var bytes = Array(text.utf8)[...]
    while let byte = bytes.popFirst() {
        if byte == UInt8(ascii: "\\"), bytes.first == UInt8(ascii: "x"), bytes.count >= 3,
           let value = UInt8(String(decoding: bytes.dropFirst().prefix(2), as: UTF8.self), radix: 16) {
            out.append(value)
            bytes = bytes.dropFirst(3)
        } else {
            out.append(byte)
        }
    }
    return out
}
