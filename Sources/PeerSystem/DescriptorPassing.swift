import Glibc

/// File descriptors handed across a Unix socket with `SCM_RIGHTS` (issue
/// 12, point 7: the CLI gives the daemon the file to send, or a pipe's
/// ends, instead of copying bulk data through JSON).
///
/// Bounded both ways: at most ``maxDescriptors`` go in one message, and
/// descriptors beyond what the receiver asked for, or in a message whose
/// control data was cut short, are closed at once, never leaked. Received
/// descriptors are close-on-exec (`MSG_CMSG_CLOEXEC`).
public enum DescriptorPassing {
    /// The most descriptors in one message.
    public static let maxDescriptors = 64

    /// What one `recvmsg` brought.
    public struct Received: Sendable {
        /// The ordinary bytes.
        public var bytes: [UInt8]
        /// The descriptors, now this process's to close.
        public var descriptors: [FileDescriptor]
    }

    /// `sizeof(struct cmsghdr)`, padded to its alignment, and the space for
    /// `count` descriptors after it (glibc's `CMSG_LEN`/`CMSG_SPACE`,
    /// macros Swift cannot import).
    private static let headerSpace = align(MemoryLayout<cmsghdr>.size)
    private static func align(_ length: Int) -> Int {
        let unit = MemoryLayout<Int>.size
        return (length + unit - 1) & ~(unit - 1)
    }
    private static func controlLength(_ count: Int) -> Int { headerSpace + count * MemoryLayout<Int32>.size }
    private static func controlSpace(_ count: Int) -> Int { headerSpace + align(count * MemoryLayout<Int32>.size) }

    /// Sends `bytes` (at least one) with `descriptors` on `socket`. The
    /// descriptors stay open here; the receiver gets duplicates.
    public static func send(_ bytes: [UInt8], descriptors: [FileDescriptor], on socket: FileDescriptor) throws(SystemError) {
        precondition(!bytes.isEmpty, "a message that carries descriptors needs at least one byte")
        guard descriptors.count <= maxDescriptors else {
            throw SystemError("sendmsg", errno: EINVAL, context: "\(descriptors.count) descriptors; at most \(maxDescriptors)")
        }
        var control = [UInt8](repeating: 0, count: descriptors.isEmpty ? 0 : controlSpace(descriptors.count))
        var payload = bytes
        let outcome: Result<Int, SystemError> = control.withUnsafeMutableBytes { controlRaw in
            if !descriptors.isEmpty, let base = controlRaw.baseAddress {
                let header = base.assumingMemoryBound(to: cmsghdr.self)
                header.pointee.cmsg_len = controlLength(descriptors.count)
                header.pointee.cmsg_level = SOL_SOCKET
                header.pointee.cmsg_type = Int32(SCM_RIGHTS)
                let data = (base + headerSpace).assumingMemoryBound(to: Int32.self)
                for (index, descriptor) in descriptors.enumerated() { data[index] = descriptor.rawValue }
            }
            return payload.withUnsafeMutableBytes { payloadRaw in
                var vector = iovec(iov_base: payloadRaw.baseAddress, iov_len: payloadRaw.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = descriptors.isEmpty ? nil : controlRaw.baseAddress
                    message.msg_controllen = controlRaw.count
                    return Result { () throws(SystemError) in
                        try Syscall.call("sendmsg") { sendmsg(socket.rawValue, &message, Int32(MSG_NOSIGNAL)) }
                    }
                }
            }
        }
        let sent = try outcome.get()
        guard sent == bytes.count else {
            throw SystemError("sendmsg", errno: EMSGSIZE, context: "\(sent) of \(bytes.count) bytes sent with the descriptors")
        }
    }

    /// Receives up to `maxBytes` and at most `maxCount` descriptors (no
    /// more than ``maxDescriptors``) from `socket`. Returns nil at the end
    /// of the stream. Descriptors past `maxCount`, or any in a message whose
    /// control data was cut short, are closed and the call throws.
    public static func receive(on socket: FileDescriptor, maxBytes: Int, maxCount: Int) throws(SystemError) -> Received? {
        let wanted = min(max(maxCount, 0), maxDescriptors)
        var control = [UInt8](repeating: 0, count: controlSpace(maxDescriptors))
        var payload = [UInt8](repeating: 0, count: max(maxBytes, 1))
        var truncated = false
        var descriptors: [FileDescriptor] = []
        let outcome: Result<Int, SystemError> = control.withUnsafeMutableBytes { controlRaw in
            payload.withUnsafeMutableBytes { payloadRaw in
                var vector = iovec(iov_base: payloadRaw.baseAddress, iov_len: payloadRaw.count)
                return withUnsafeMutablePointer(to: &vector) { vectorPointer in
                    var message = msghdr()
                    message.msg_iov = vectorPointer
                    message.msg_iovlen = 1
                    message.msg_control = controlRaw.baseAddress
                    message.msg_controllen = controlRaw.count
                    let received: Int
                    do throws(SystemError) {
                        received = try Syscall.call("recvmsg") { recvmsg(socket.rawValue, &message, Int32(MSG_CMSG_CLOEXEC)) }
                    } catch {
                        return .failure(error)
                    }
                    truncated = message.msg_flags & Int32(MSG_CTRUNC) != 0
                    // Walk the control messages glibc's way (CMSG_NXTHDR), by hand.
                    var offset = 0
                    let length = min(message.msg_controllen, controlRaw.count)
                    while offset + headerSpace <= length, let base = controlRaw.baseAddress {
                        let header = (base + offset).assumingMemoryBound(to: cmsghdr.self).pointee
                        guard header.cmsg_len >= headerSpace, offset + header.cmsg_len <= length else { break }
                        if header.cmsg_level == SOL_SOCKET && header.cmsg_type == Int32(SCM_RIGHTS) {
                            let number = (header.cmsg_len - headerSpace) / MemoryLayout<Int32>.size
                            let data = (base + offset + headerSpace).assumingMemoryBound(to: Int32.self)
                            for index in 0..<number { descriptors.append(FileDescriptor(rawValue: data[index])) }
                        }
                        offset += align(header.cmsg_len)
                    }
                    return .success(received)
                }
            }
        }
        let count = try outcome.get()
        if truncated || descriptors.count > wanted {
            for descriptor in descriptors { descriptor.close() }
            throw SystemError("recvmsg", errno: truncated ? EMSGSIZE : E2BIG,
                              context: "\(descriptors.count) descriptors arrived\(truncated ? " (cut short)" : ""); at most \(wanted) were expected")
        }
        if count == 0 && descriptors.isEmpty { return nil }
        return Received(bytes: Array(payload.prefix(count)), descriptors: descriptors)
    }
}
