
/// Routes, as `/proc/net/route` and `ip route get` tell them.
package enum RouteFacts {
    /// The interface of the IPv4 default route in `/proc/net/route`'s text.
    package static func defaultInterface(procNetRoute text: String) -> String? {
        for line in text.split(whereSeparator: \.isNewline).dropFirst() {
            let fields = DoctorText.words(line)
            guard fields.count > 7, fields[1] == "00000000", fields[7] == "00000000" else { continue }
            return String(fields[0])
        }
        return nil
    }

    /// Whether `interface` is by its name a tunnel (WireGuard, OpenVPN,
    /// Tailscale, ZeroTier, PPP): traffic through it does not reach the LAN.
    package static func isVPN(_ interface: String) -> Bool {
        ["wg", "tun", "tap", "ppp", "tailscale", "zt", "nordlynx", "vpn", "ipsec"].contains { interface.hasPrefix($0) }
    }

    /// What `ip route get ADDRESS` printed: the gateway (nil when the
    /// address is on a link of ours), the device, and whether it is local.
    package struct Route: Equatable, Sendable {
        /// The next hop, when there is one.
        package var gateway: String?
        /// The interface the packets leave by.
        package var device: String?
        /// The address is this host's own.
        package var local: Bool
    }

    /// Reads `ip route get`'s first line; nil when there is no route.
    package static func route(ipRouteGet text: String) -> Route? {
        guard let line = text.split(whereSeparator: \.isNewline).first else { return nil }
        let fields = DoctorText.words(line).map(String.init)
        guard !fields.isEmpty, fields[0] != "unreachable", fields[0] != "prohibit", fields[0] != "blackhole" else { return nil }
        func after(_ word: String) -> String? { fields.firstIndex(of: word).flatMap { $0 + 1 < fields.count ? fields[$0 + 1] : nil } }
        return Route(gateway: after("via"), device: after("dev"), local: fields[0] == "local")
    }
}
