import Glibc

/// The write end of the self-pipe the signal handlers write to: a signal
/// handler may only call async-signal-safe functions, so it writes one
/// byte and the main loop does the work.
nonisolated(unsafe) private var signalPipe: Int32 = -1

private func forwardSignal(_ signal: Int32) {
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(signalPipe, &byte, 1)
}

/// The terminal while `peerctl top` runs: raw input, the alternate
/// screen, a hidden cursor, and signals turned into bytes on a pipe. The
/// terminal is restored exactly once, on every way out: `q`, Ctrl-C (a
/// byte in raw mode), SIGTERM, SIGINT, SIGHUP.
final class Terminal {
    private var saved = termios()
    private var active = false
    /// Read end of the signal pipe: each byte is a signal number.
    let signals: Int32

    /// Takes over the terminal on stdin and stdout.
    init() throws(TerminalError) {
        guard tcgetattr(0, &saved) == 0 else { throw TerminalError("tcgetattr", errno) }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw TerminalError("pipe", errno) }
        for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        signals = fds[0]
        signalPipe = fds[1]
        for sig in [SIGWINCH, SIGTERM, SIGINT, SIGHUP] { signal(sig, forwardSignal) }
        var raw = saved
        // Keys one by one, unechoed; Ctrl-C and Ctrl-S as bytes, not signals or flow control.
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL | INLCR)
        raw.c_cc.6 = 1    // VMIN
        raw.c_cc.5 = 0    // VTIME
        guard tcsetattr(0, TCSAFLUSH, &raw) == 0 else { throw TerminalError("tcsetattr", errno) }
        active = true
        write("\u{1B}[?1049h\u{1B}[?25l")
    }

    /// Leaves the alternate screen and puts the terminal back as it was.
    func restore() {
        guard active else { return }
        active = false
        write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        _ = tcsetattr(0, TCSAFLUSH, &saved)
        for sig in [SIGWINCH, SIGTERM, SIGINT, SIGHUP] { signal(sig, SIG_DFL) }
    }

    deinit { restore() }

    /// The size now: (columns, rows).
    static func size() -> (width: Int, height: Int)? {
        var size = winsize()
        guard ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Writes `text` to stdout in full (one buffered write per frame).
    func write(_ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            bytes = bytes.dropFirst(n)
        }
    }
}
