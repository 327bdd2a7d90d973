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

    /// The `poll` timeout, in milliseconds, from `now` until `deadline`:
    /// 0 once it has passed, rounded down, clamped to `Int32`.
    public static func pollTimeout(until deadline: ContinuousClock.Instant, from now: ContinuousClock.Instant = .now) -> Int32 {
        let left = now.duration(to: deadline)
        return max(0, Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
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
