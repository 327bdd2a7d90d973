import FoundationEssentials
import Glibc
import PeerKit
import PeerSystem

extension PeerctlCommands {
    /// `peerctl add HOST[:PORT]`: a host name is resolved here (the daemon
    /// never waits on DNS), and each of its addresses is tried in turn
    /// until one reaches a peer that proves its key.
    func add(_ address: PeerAddress, context: String?, timeout: Double?, wait: Bool) throws(ControlClientError) -> Int32 {
        let candidates: [String]
        if address.family != nil {
            candidates = [address.host + (address.scope.map { "%" + $0 } ?? "")]
        } else {
            let resolved = Self.resolve(address.host)
            guard resolved.failure == nil, !resolved.addresses.isEmpty else {
                printError("cannot resolve '\(address.host)': \(resolved.failure ?? "no IPv4 or IPv6 address")")
                return 1
            }
            candidates = resolved.addresses
        }
        if wait { _ = try client.call(.subscribe) }
        let port = Int(address.port ?? PeerAddress.defaultPort)
        var lastError: ControlClientError?
        for candidate in candidates {
            var params = ControlParams(context: context, timeout: timeout)
            params.address = candidate
            params.port = port
            let result: InviteResult
            do { result = try client.call(.add, params: params) } catch {
                // The daemon answered no: the next address may be the one.
                guard case .daemon(let refusal) = error, refusal.code == .unreachable else { throw error }
                lastError = error
                continue
            }
            let peer = result.peer
            if !wait || peer.state == .connected || result.existing {
                emit(json ? PeerctlRenderer.json(result)
                     : result.existing ? "'\(TerminalText.escape(peer.name))' at \(candidate) already has a session (\(peer.state.rawValue))"
                     : "reached '\(TerminalText.escape(peer.name))' (\(peer.peerId ?? "?")) at \(candidate); invited it (\(peer.id.uuidString.lowercased()))")
                return 0
            }
            if !json { emit("reached '\(TerminalText.escape(peer.name))' at \(candidate); waiting for it to accept") }
            return try waitForAnswer(peer, timeout: timeout)
        }
        throw lastError ?? .daemon(ControlError(.unreachable, "'\(address.host)' has no address to try"))
    }

    /// The numeric addresses of `host`, IPv4 first, or the resolver's words.
    static func resolve(_ host: String) -> (addresses: [String], failure: String?) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &list)
        guard status == 0 else { return ([], String(cString: gai_strerror(status))) }
        defer { freeaddrinfo(list) }
        var v4: [String] = [], v6: [String] = []
        var node = list
        while let entry = node?.pointee {
            if let address = entry.ai_addr, let numeric = SocketAddress.numericHost(address, length: entry.ai_addrlen) {
                if entry.ai_family == AF_INET { if !v4.contains(numeric) { v4.append(numeric) } } else if !v6.contains(numeric) { v6.append(numeric) }
            }
            node = entry.ai_next
        }
        return (v4 + v6, nil)
    }
}
