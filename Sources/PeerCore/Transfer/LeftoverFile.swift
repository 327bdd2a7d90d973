/// A file peerd left in a download folder for a transfer that may resume
/// (issue 21, point 1.4): `.peerd-FLOW-N.part` (the bytes so far) and
/// `.peerd-FLOW-N.blocks` (their verified blocks), or a 0.1.0 acceptance
/// note, `.peerd-FLOW.accepted`, which this release no longer reads. The
/// sweep removes those older than the partial-file lifetime.
package import PeerProtocol
package struct LeftoverFile: Sendable, Equatable {
    /// The transfer it belongs to.
    package var flow: FlowID

    /// Reads a directory entry's name; nil for anything peerd did not make.
    package static func parse(_ name: String) -> LeftoverFile? {
        guard name.hasPrefix(TransferPath.reservedPrefix) else { return nil }
        var rest = Substring(name.dropFirst(TransferPath.reservedPrefix.count))
        guard rest.count > 32, let flow = FlowID(hex: String(rest.prefix(32))) else { return nil }
        rest = rest.dropFirst(32)
        if rest == ".accepted" { return LeftoverFile(flow: flow) }
        guard rest.first == "-" else { return nil }
        rest = rest.dropFirst()
        for suffix in [".part", ".blocks"] where rest.hasSuffix(suffix) {
            let number = rest.dropLast(suffix.count)
            guard !number.isEmpty, number.count <= 6, number.allSatisfy(\.isASCII), number.allSatisfy(\.isNumber) else { return nil }
            return LeftoverFile(flow: flow)
        }
        return nil
    }

    /// Whether a leftover last changed at `modified` goes, at `now`:
    /// older than `lifetime` seconds, and of no transfer held now (an
    /// offer waiting, a transfer running or interrupted).
    package static func isExpired(modified: Int64, now: Int64, lifetime: Int64, flow: FlowID, held: Set<FlowID>) -> Bool {
        !held.contains(flow) && now - modified > lifetime
    }
}
