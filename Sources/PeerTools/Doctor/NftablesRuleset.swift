
/// Reads `nft list ruleset` well enough to say whether new packets to a
/// port get in: every input-hook chain (in any table) must let them pass,
/// the first rule that surely applies decides in each, and the chain's
/// policy otherwise. Rules that depend on things this cannot know (source
/// addresses, marks, jumps) are passed over, so the answer leans to
/// "accepted"; `doctor` says what it read.
package struct NftablesRuleset: Sendable {
    /// One base chain on the input hook.
    struct Chain {
        /// Its name, for the words.
        var name: String
        /// `policy drop`.
        var policyDrops = false
        /// Its rules, in order, as printed.
        var rules: [String] = []
    }

    /// The input-hook chains, in the order printed.
    let chains: [Chain]

    /// Reads the ruleset's text.
    package init(parsing text: String) {
        var chains: [Chain] = []
        var current: Chain?
        var isInput = false
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = DoctorText.trim(raw)
            if line.hasPrefix("chain ") {
                current = Chain(name: String(DoctorText.words(line).dropFirst().first ?? ""))
                isInput = false
                continue
            }
            guard var chain = current else { continue }
            if line == "}" {
                if isInput { chains.append(chain) }
                current = nil
                continue
            }
            if line.hasPrefix("type ") {
                isInput = line.contains("hook input")
                chain.policyDrops = line.contains("policy drop")
            } else if !line.isEmpty {
                chain.rules.append(line)
            }
            current = chain
        }
        self.chains = chains
    }

    /// The verdict for new `proto` ("udp" or "tcp") packets to `port`.
    package func verdict(proto: String, port: UInt16) -> FirewallVerdict {
        guard !chains.isEmpty else { return .unfiltered }
        var accepted: [String] = []
        for chain in chains {
            var decided = false
            for rule in chain.rules {
                guard let verdict = Self.verdict(of: rule), Self.applies(rule, proto: proto, port: port) else { continue }
                if verdict == "accept" {
                    accepted.append("chain \(chain.name): \(rule)")
                } else {
                    return .blocked("chain \(chain.name): \(rule)")
                }
                decided = true
                break
            }
            if !decided {
                if chain.policyDrops { return .blocked("chain \(chain.name): policy drop, and no rule accepts \(proto) port \(port)") }
                accepted.append("chain \(chain.name): policy accept")
            }
        }
        return .accepted(accepted.joined(separator: "; "))
    }

    private static func verdict(of rule: String) -> String? {
        DoctorText.words(rule).reversed().first { $0 == "accept" || $0 == "drop" || $0 == "reject" }.map(String.init)
    }

    /// Whether `rule` surely matches a new `proto` packet to `port`.
    private static func applies(_ rule: String, proto: String, port: UInt16) -> Bool {
        let words = DoctorText.words(rule).map(String.init)
        if let at = words.firstIndex(of: "dport"), at > 0 {
            guard words[at - 1] == proto || words[at - 1] == "th" else { return false }
            return names(port, after: at, in: words)
        }
        // Conditions that leave new packets from elsewhere out, or that this cannot judge.
        let unknowable = ["saddr", "daddr", "iif", "iifname", "oif", "oifname", "mark", "jump", "goto", "sport", "icmp", "icmpv6", "limit", "@"]
        if words.contains(where: { word in unknowable.contains { word.hasPrefix($0) } }) { return false }
        if let at = words.firstIndex(of: "state") {
            // `ct state established,related accept` is for replies; `ct state invalid drop` for junk.
            return at + 1 < words.count && words[at + 1].split(separator: ",").contains("new")
        }
        if let at = words.firstIndex(of: "l4proto") ?? words.firstIndex(of: "protocol") {
            return at + 1 < words.count && words[at + 1] == proto
        }
        // What is left: a bare verdict, perhaps with a counter or log.
        return words.allSatisfy { ["counter", "log", "accept", "drop", "reject", "packets", "bytes"].contains($0) || $0.allSatisfy(\.isNumber) }
    }

    /// Whether the ports named after `dport` include `port`: a number, a
    /// service name, a range, or a `{ … }` set of those.
    private static func names(_ port: UInt16, after at: Int, in words: [String]) -> Bool {
        var items: [String] = []
        var i = at + 1
        if i < words.count, words[i] == "{" {
            i += 1
            while i < words.count, words[i] != "}" {
                items.append(words[i].trimmingSuffix(","))
                i += 1
            }
        } else if i < words.count {
            items.append(words[i])
        }
        let named = ["mdns": "5353", "ssh": "22", "http": "80", "https": "443"]
        return items.contains { item in
            let bounds = (named[item] ?? item).split(separator: "-").compactMap { UInt16($0) }
            if bounds.count == 2 { return bounds[0] <= port && port <= bounds[1] }
            return bounds.count == 1 && bounds[0] == port
        }
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
