import Glibc

/// A failed system call, with the errno captured at the call site and what
/// peerd was doing.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The system call, such as `bind`.
    public var syscall: String
    /// The errno it left.
    public var errno: Int32
    /// What it was for, such as the path or port.
    public var context: String

    /// Creates an error.
    public init(_ syscall: String, errno: Int32, context: String = "") {
        self.syscall = syscall
        self.errno = errno
        self.context = context
    }

    /// `bind(/run/peerd/peerd.sock): Permission denied (errno 13)`.
    public var description: String {
        let what = context.isEmpty ? syscall : "\(syscall)(\(context))"
        return "\(what): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
