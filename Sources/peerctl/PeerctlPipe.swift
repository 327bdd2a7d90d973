import Dispatch
import Glibc
import PeerKit
import PeerSystem

/// `pipe`: stdin and stdout joined to a named stream on the session.
extension PeerctlCommands {
    func pipe(_ selector: String, name: String) throws(ControlClientError) -> Int32 {
        let pumps = DispatchGroup()
        // A pipe, socket, file or memory device (/dev/null) goes to peerd as
        // it is; a terminal (or any other device) through a pipe of ours.
        let input = Self.direct(0) ? FileDescriptor(rawValue: 0) : Self.pumped(from: 0, group: pumps, towardDaemon: true)
        let output = Self.direct(1) ? FileDescriptor(rawValue: 1) : Self.pumped(from: 1, group: pumps, towardDaemon: false)
        var params = scoped(ControlParams(peer: selector))
        params.name = name
        client.responseTimeout = .seconds(365 * 86_400)
        let answer: StreamInfo
        do {
            answer = try client.call(.pipe, params: params, descriptors: [input, output], sent: {
                // peerd holds the only other copies now: our stdin and stdout
                // must not keep the stream's ends open (a half-close is seen
                // by the reader only when every copy is closed).
                let null = open("/dev/null", O_RDWR)
                for fd in [input.rawValue, output.rawValue] where fd <= 1 { dup2(null, fd) }
                for fd in [input.rawValue, output.rawValue] where fd > 1 { close(fd) }
                close(null)
            })
        } catch {
            throw error
        }
        pumps.wait()
        if json {
            // stdout carries the stream's bytes, so the answer goes to stderr:
            // one bare JSON line (no "peerctl:" prefix, no words after it)
            // that a program can parse.
            let line = Array(PeerctlRenderer.json(answer).utf8)   // a JSON line ends with its newline
            line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
            return answer.state == "closed" ? 0 : 1
        }
        guard answer.state == "closed" else {
            printError("stream '\(answer.name)' \(answer.state): \(answer.reason?.rawValue ?? "")\(answer.detail.map { ": \($0)" } ?? "")")
            return 1
        }
        return 0
    }

    /// Whether `fd` can go to peerd as it is.
    private static func direct(_ fd: Int32) -> Bool {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        return type == S_IFIFO || type == S_IFSOCK || AlwaysReady.check(info)
    }

    /// A pipe between `fd` and peerd, copied by a thread of ours; returns
    /// the end for peerd.
    private static func pumped(from fd: Int32, group: DispatchGroup, towardDaemon: Bool) -> FileDescriptor {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else { return FileDescriptor(rawValue: fd) }
        // A megabyte between us and peerd (the unprivileged ceiling): with
        // the default 64 KiB each of peerd's frames woke this thread.
        PipeBuffer.widen(ends[0], to: 1 << 20)
        let (ours, theirs) = towardDaemon ? (ends[1], ends[0]) : (ends[0], ends[1])
        _ = fcntl(ours, F_SETFD, FD_CLOEXEC)
        group.enter()
        DispatchQueue.global().async {
            var buffer = [UInt8](repeating: 0, count: 1 << 18)
            let (source, sink) = towardDaemon ? (fd, ours) : (ours, fd)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                var done = 0
                while done < count {
                    let wrote = buffer.withUnsafeBytes { write(sink, $0.baseAddress! + done, count - done) }
                    if wrote < 0 && errno == EINTR { continue }
                    if wrote <= 0 { break }
                    done += wrote
                }
                if done < count { break }
            }
            close(ours)
            group.leave()
        }
        return FileDescriptor(rawValue: theirs)
    }
}
