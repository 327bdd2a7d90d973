import Dispatch
import Glibc
import PeerCore
import PeerSystem

/// The local ends of one stream (issue 12, point 6): the descriptor its
/// bytes are read from (a `peerctl pipe`'s stdin) and the one they are
/// written to (its stdout), handed over by `SCM_RIGHTS`. A pipe or socket
/// is made non-blocking and watched by Dispatch; a regular file (or
/// `/dev/null` and the other memory devices, ``AlwaysReady``) is always
/// ready, so it is read and written directly. Output waits in a buffer
/// bounded by the stream's receive window: credit is given back only as it
/// drains, so a slow reader holds back its own stream and nothing else.
@MainActor
final class StreamPort {
    /// What a read gave.
    enum Read {
        case bytes(Int)
        case wouldBlock
        case end
        case failed(String)
    }

    private let input: FileDescriptor
    private let inputIsFile: Bool
    private var inputChannel: PollChannel?
    private var inputClosed = false
    private let output: FileDescriptor
    private let outputIsFile: Bool
    private var outputChannel: PollChannel?
    private var outputClosed = false
    /// Keeps up to a quarter megabyte between bursts: a reader slower
    /// than the lane fills it again and again, and a buffer let go each
    /// time was a fresh mapping whose every page faulted in (issue 44:
    /// 44,000 page faults for a 1 GiB pipe's receiver). The window bounds
    /// it anyway.
    private var pending = OutputBuffer(keepCapacity: 1 << 18)
    private var closeWhenDrained = false
    /// Input may have bytes (given to ``start(onReadable:onWritten:onBroken:)``).
    private var onReadable: @MainActor () -> Void = {}
    /// Output drained `count` bytes (they count as consumed).
    private var onWritten: @MainActor (Int) -> Void = { _ in }
    /// Output failed (the reader went away).
    private var onBroken: @MainActor (String) -> Void = { _ in }

    /// Takes both descriptors.
    init(input: FileDescriptor, output: FileDescriptor) {
        self.input = input
        self.output = output
        inputIsFile = AlwaysReady.check(descriptor: input.rawValue)
        outputIsFile = AlwaysReady.check(descriptor: output.rawValue)
        Self.widenIfPipe(input)
        Self.widenIfPipe(output)
    }

    /// What a pipe end is widened to: a stream's receive window on a lane
    /// (``ReceiveWindow``), below the unprivileged ceiling
    /// (`/proc/sys/fs/pipe-max-size`, 1 MiB by default).
    static let pipeSize: Int32 = 512 * 1024

    /// Grows a pipe's buffer to ``pipeSize`` (never shrinks it): with the
    /// default 64 KiB, every frame's worth of bytes woke the process on
    /// the other end and left the rest waiting here (issue 44). A refusal
    /// (the user's pipe quota, `pipe-user-pages-soft`) leaves it as it was.
    private static func widenIfPipe(_ end: FileDescriptor) {
        guard let status = try? end.status(), status.st_mode & S_IFMT == S_IFIFO else { return }
        PipeBuffer.widen(end.rawValue, to: pipeSize)
    }

    /// Starts watching: `onReadable` hears that input may have bytes,
    /// `onWritten` that output drained bytes, `onBroken` that output failed.
    /// Nothing is watched before, so none of them can be missed.
    func start(onReadable: @escaping @MainActor () -> Void, onWritten: @escaping @MainActor (Int) -> Void,
               onBroken: @escaping @MainActor (String) -> Void) {
        self.onReadable = onReadable
        self.onWritten = onWritten
        self.onBroken = onBroken
        if !inputIsFile {
            try? input.setNonBlocking()
            inputChannel = PollChannel(descriptor: input, onReadable: { [weak self] in self?.readableFired() }, onWritable: {})
            inputChannel?.pauseReading()
        }
        if !outputIsFile {
            try? output.setNonBlocking()
            outputChannel = PollChannel(descriptor: output, onReadable: {}, onWritable: { [weak self] in self?.flush() })
            // The write end of a pipe is never read; its read source would
            // only report the reader's hang-up, which a write reports too.
            outputChannel?.pauseReading()
        }
    }

    /// Whether reads may be tried now without waiting (``AlwaysReady``).
    var inputAlwaysReady: Bool { inputIsFile && !inputClosed }

    /// Watches the input for bytes (a pipe), or not.
    func wantInput(_ wanted: Bool) {
        guard !inputClosed else { return }
        if wanted { inputChannel?.resumeReading() } else { inputChannel?.pauseReading() }
    }

    private func readableFired() {
        inputChannel?.pauseReading()
        onReadable()
    }

    /// Reads into `buffer` (a frame being built: no copy).
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Read {
        guard !inputClosed else { return .end }
        do {
            guard let count = try input.read(into: buffer) else { return .wouldBlock }
            return count == 0 ? .end : .bytes(count)
        } catch {
            return .failed("reading the stream's input: \(error)")
        }
    }

    /// Bytes held for the output, not yet written.
    var pendingCount: Int { pending.count }

    /// Writes `bytes` to the output (straight from where they were
    /// decrypted), or keeps a copy of what it does not take until it is
    /// writable.
    func write(_ bytes: UnsafeRawBufferPointer) {
        guard !outputClosed else { return }
        if pendingCount == 0 {
            // Straight out when nothing waits; only what the output does not take is kept.
            var done = 0
            while done < bytes.count {
                let start = done
                let count: Int?
                do {
                    count = try Syscall.nonBlocking("write") { Glibc.write(output.rawValue, bytes.baseAddress! + start, bytes.count - start) }
                } catch {
                    return onBroken("writing the stream's output: \(error)")
                }
                guard let count else { break }
                done += count
            }
            if done > 0 { onWritten(done) }
            guard done < bytes.count else { return }
            pending.append(UnsafeRawBufferPointer(rebasing: bytes[done...]))
            outputChannel?.armWrite(true)
            return
        }
        pending.append(bytes)
        flush()
    }

    /// Closes the output once what is held is written (the peer half-closed).
    func finishOutput() {
        closeWhenDrained = true
        flush()
    }

    /// Whether the output is closed (half-close delivered).
    var outputFinished: Bool { outputClosed }

    private func flush() {
        guard !outputClosed else { return }
        let written: Int
        do { written = try pending.write(to: output.rawValue) } catch {
            outputChannel?.armWrite(false)
            return onBroken("writing the stream's output: \(error)")
        }
        outputChannel?.armWrite(pendingCount > 0)
        // Closed before the report: whoever hears of the last bytes sees the end too.
        if closeWhenDrained && pendingCount == 0 { closeOutput() }
        if written > 0 || outputClosed { onWritten(written) }
    }

    private func closeOutput() {
        guard !outputClosed else { return }
        outputClosed = true
        if let outputChannel { outputChannel.close() } else { output.close() }
        outputChannel = nil
    }

    /// Stops reading the input (its end was sent, or the stream ended).
    func closeInput() {
        guard !inputClosed else { return }
        inputClosed = true
        if let inputChannel { inputChannel.close() } else { input.close() }
        inputChannel = nil
    }

    /// Closes both ends.
    func close() {
        closeInput()
        closeOutput()
        pending.release()
    }
}
