import Glibc
import PeerCore
import PeerIO
import PeerProtocol

/// `offer NAME...`: invites, then offers one 5-byte file per NAME (`\xHH`
/// escapes allowed, for control characters), sends the accepted ones, and
/// prints each verdict and how the transfer ended. A sender that does not
/// check its names, as a hostile peer would.
func probeOffer(_ connection: ProbeConnection, names: [String]) throws -> String {
    let answer = try invite(connection, pairing: false)
    guard answer == "accepted" else { return "invite \(answer)" }
    let flow = FlowID(bytes: Sodium.randomBytes(16))!
    let mode = getenv("PROBE_MODE").flatMap { UInt32(String(cString: $0), radix: 8) } ?? 0o644
    let files = names.map { OfferedFile(name: unescape($0), size: 5, mode: mode, mtime: 1_764_460_800) }
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
        // $PROBE_BAD_HASH: a block hash that does not match, so the transfer fails.
        let hash = Blake2b.hash(getenv("PROBE_BAD_HASH") == nil ? bytes : Array("other".utf8))
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

/// `offer-only FLOW WAIT SPEC...`: invites, then offers under transfer id
/// FLOW (32 hex) the files SPEC names, without sending any of their bytes:
/// `NAME:SIZE:MODE` (octal) for one file, or `many:COUNT:NAMELEN` for COUNT
/// empty files in folders of 10 with names NAMELEN bytes long. Waits WAIT
/// seconds for the answer; prints each file's verdict (`accepted@BLOCK`),
/// a cancel, or `no answer`; then hangs up, as a peer that goes away would.
func probeOfferOnly(_ connection: ProbeConnection, flow hex: String, wait: Double, specs: [String]) throws -> String {
    guard let flow = FlowID(hex: hex) else { throw ProbeError("FLOW is 32 hexadecimal digits") }
    let answer = try invite(connection, pairing: false)
    guard answer == "accepted" else { return "invite \(answer)" }
    var files: [OfferedFile] = []
    for spec in specs {
        let parts = spec.split(separator: ":").map(String.init)
        if parts.count == 3, parts[0] == "many", let count = Int(parts[1]), let length = Int(parts[2]) {
            for n in 0..<count {
                let plain = Array(String(n).utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: max(0, length - String(n).utf8.count))
                // A component is at most 255 bytes: a longer name is folders,
                // a slash after every 200 bytes. Built as bytes: String's
                // index walks made 18,927 names take most of a lab test's
                // 20 s in a debug build beside other work.
                var leaf: [UInt8] = []
                leaf.reserveCapacity(plain.count + plain.count / 200)
                for (index, byte) in plain.enumerated() {
                    if index > 0, index % 200 == 0 { leaf.append(UInt8(ascii: "/")) }
                    leaf.append(byte)
                }
                files.append(OfferedFile(name: Array("d\(n / 10)/".utf8) + leaf, size: 0, mode: 0o644, mtime: 1_764_460_800))
            }
        } else if parts.count == 3, let size = UInt64(parts[1]), let mode = UInt32(parts[2], radix: 8) {
            // Sizes are unsigned on the wire: up to 2^64 − 1, top bit and all.
            files.append(OfferedFile(name: unescape(parts[0]), size: Int64(bitPattern: size), mode: mode, mtime: 1_764_460_800))
        } else {
            throw ProbeError("a file is NAME:SIZE:MODE or many:COUNT:NAMELEN")
        }
    }
    // Parts of at most 60,000 bytes of plaintext, as a sender must.
    // The unsigned sum, as a sender adds them ($PROBE_TOTAL overrides it).
    let total = getenv("PROBE_TOTAL").flatMap { UInt64(String(cString: $0)) }
        ?? files.reduce(UInt64(0)) { $0 &+ UInt64(bitPattern: $1.size) }
    // $PROBE_OFFERS=N: the same list under N transfer ids (FLOW's last
    // byte plus 0…N−1), all on this one session; the answer printed is FLOW's.
    let offers = getenv("PROBE_OFFERS").flatMap { Int(String(cString: $0)) } ?? 1
    for k in 0..<max(1, offers) {
        var bytes = flow.bytes
        bytes[15] = bytes[15] &+ UInt8(truncatingIfNeeded: k)
        let id = FlowID(bytes: bytes)!
        var start = 0
        repeat {
            var end = start, bytes = 0
            while end < files.count, bytes + files[end].name.count + 32 < 60_000 { bytes += files[end].name.count + 32; end += 1 }
            // $PROBE_UNFINISHED: even the last part says more follow.
            try connection.send(.bulk(.offer(id, more: end < files.count || getenv("PROBE_UNFINISHED") != nil, totalFiles: UInt32(files.count), totalBytes: total,
                                             files: Array(files[start..<end]))))
            start = end
        } while start < files.count
    }
    let began = clock.now
    var verdicts: [String] = []
    while case let left = wait - seconds(since: began), left > 0, let message = try connection.next(timeout: left) {
        if case .bulk(.answer(_, let more, let part)) = message {
            verdicts += part.map { "\($0.file)=\($0.verdict.word)\($0.verdict == .accepted ? "@\($0.firstBlock)" : "")" }
            if !more { return verdicts.joined(separator: " ") }
        } else if case .bulk(.cancel(_, let reason, let text)) = message {
            return "cancelled \(reason.rawValue): \(text)"
        }
    }
    return verdicts.isEmpty ? "no answer" : verdicts.joined(separator: " ") + " (more to come)"
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
