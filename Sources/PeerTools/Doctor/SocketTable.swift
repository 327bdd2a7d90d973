
/// `/proc/net/udp` and `/proc/net/udp6`: which sockets of this network
/// namespace are bound to a port (an mDNS responder holds 5353).
package enum SocketTable {
    /// The inodes of the sockets bound to local `port` in the table's text.
    package static func inodes(boundTo port: UInt16, in text: String) -> [UInt64] {
        var found: [UInt64] = []
        for line in text.split(whereSeparator: \.isNewline).dropFirst() {
            let fields = DoctorText.words(line)
            guard fields.count > 9, let colon = fields[1].lastIndex(of: ":"),
                  let local = UInt16(fields[1][fields[1].index(after: colon)...], radix: 16), local == port,
                  let inode = UInt64(fields[9]), inode != 0 else { continue }
            found.append(inode)
        }
        return found
    }
}
