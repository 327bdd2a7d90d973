import Glibc
import PeerCore

/// Watches the kernel's link and address notifications (an `AF_NETLINK`
/// route socket) and hands each datagram's ``NetworkChange``s to its owner
/// on the main queue. Read-only: peerd never changes the network.
@MainActor
package final class NetlinkMonitor {
    private var channel: PollChannel?
    private let onChanges: @MainActor ([NetworkChange]) -> Void

    /// Opens and binds the socket. Throws when netlink is unavailable (a
    /// sandbox without `AF_NETLINK`); the daemon then runs without it.
    package init(onChanges: @escaping @MainActor ([NetworkChange]) -> Void) throws(SystemError) {
        self.onChanges = onChanges
        let flags = Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        // NETLINK_ROUTE is protocol 0.
        let fd = FileDescriptor(rawValue: try Syscall.call("socket", "AF_NETLINK") { socket(AF_NETLINK, flags, 0) })
        // struct sockaddr_nl: nl_family (u16), nl_pad (u16), nl_pid (u32, 0:
        // the kernel assigns one), nl_groups (u32), in host byte order.
        var address = [UInt8](repeating: 0, count: 12)
        withUnsafeBytes(of: UInt16(AF_NETLINK)) { address.replaceSubrange(0..<2, with: $0) }
        withUnsafeBytes(of: NetlinkRouteParser.subscribedGroups) { address.replaceSubrange(8..<12, with: $0) }
        do {
            try Syscall.call("bind", "AF_NETLINK route groups") {
                address.withUnsafeBytes { raw in
                    bind(fd.rawValue, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
                }
            }
        } catch {
            fd.close()
            throw error
        }
        channel = PollChannel(descriptor: fd, onReadable: { [weak self] in self?.readable() }, onWritable: {})
    }

    /// Stops watching and closes the socket.
    package func stop() {
        channel?.close()
        channel = nil
    }

    private func readable() {
        guard let descriptor = channel?.descriptor else { return }
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let result = buffer.withUnsafeMutableBytes { raw in Result { () throws(SystemError) in try descriptor.read(into: raw) } }
            let count: Int?
            switch result {
            case .success(let read):
                count = read
            case .failure(let error) where error.errno == ENOBUFS:
                // The kernel dropped notifications; say so and keep reading.
                onChanges([.overrun])
                continue
            case .failure:
                return
            }
            guard let count, count > 0 else { return }
            let changes = NetlinkRouteParser.parse(Array(buffer[..<count]))
            if !changes.isEmpty { onChanges(changes) }
        }
    }
}
