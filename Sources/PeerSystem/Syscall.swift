import Glibc

/// The one place peerd retries `EINTR` and turns `-1` into a typed error.
public enum Syscall {
    /// Calls `body` until it does not fail with `EINTR`; a `-1` result throws
    /// ``SystemError`` carrying `name`, the errno and `context`.
    @discardableResult
    public static func call<T: BinaryInteger>(_ name: String, _ context: @autoclosure () -> String = "",
                                              _ body: () -> T) throws(SystemError) -> T {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = errno
            if code == EINTR { continue }
            throw SystemError(name, errno: code, context: context())
        }
    }

    /// Like ``call(_:_:_:)``, but `EAGAIN`/`EWOULDBLOCK` return nil: the
    /// non-blocking "try again when ready" case.
    public static func nonBlocking<T: BinaryInteger>(_ name: String, _ context: @autoclosure () -> String = "",
                                                     _ body: () -> T) throws(SystemError) -> T? {
        while true {
            let result = body()
            if result != -1 { return result }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            throw SystemError(name, errno: code, context: context())
        }
    }
}
