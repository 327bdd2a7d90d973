/// One change the kernel reported on a network interface (from a netlink
/// route message), reduced to what the daemon acts on.
package enum NetworkChange: Equatable, Sendable {
    /// A link's state: `running` means administratively up with carrier.
    case link(index: Int32, running: Bool)
    /// A link was removed.
    case linkRemoved(index: Int32)
    /// An address was added to an interface.
    case addressAdded(index: Int32)
    /// An address was removed from an interface.
    case addressRemoved(index: Int32)
    /// The kernel dropped notifications (the socket's buffer overflowed):
    /// anything may have changed.
    case overrun
}
