
/// What a firewall does to new packets for one port, as far as its rules
/// can be read.
package enum FirewallVerdict: Equatable, Sendable {
    /// Let in (by a rule, or by an accepting policy).
    case accepted(String)
    /// Dropped or rejected: the words say by which rule or policy.
    case blocked(String)
    /// No input filtering at all.
    case unfiltered
}
