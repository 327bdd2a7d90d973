import FoundationEssentials
import Glibc
import PeerKit
import PeerSystem
import PeerTools

/// Messages: `send`, `recv` and `take`, and how a message is printed.
extension PeerctlCommands {
    /// All of standard input.
    func readStandardInput() -> [UInt8] {
        var input: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(0, &chunk, chunk.count)
            if n <= 0 { break }
            input += chunk[0..<n]
        }
        return input
    }

    /// `send`: one message, lines of standard input (through channels
    /// toward a connected peer), or the durable queue.
    func send(_ selector: String, text: String, lines: Bool, queue: Bool) throws(ControlClientError) -> Int32 {
        // A stream of lines to a connected peer takes channels (--json wants
        // each message's own result, --queue the durable queue: both stay plain).
        if text == "-", lines, !queue, !json {
            let peer = try lookUp(selector)
            if peer.state == .connected, try client.call(.status).takesChannelOptions, let status = try sendLinesOverChannels(to: peer) { return status }
        }
        let messages: [[UInt8]]
        if text == "-" {
            let input = readStandardInput()
            messages = lines ? input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init).dropLast(input.last == UInt8(ascii: "\n") ? 1 : 0) : [input]
        } else {
            messages = [Array(text.utf8)]
        }
        let peer = try lookUp(selector)
        var total = 0
        var queued = 0
        for message in messages {
            let params = scoped(ControlParams(peer: peer.id.uuidString, data: Data(message).base64EncodedString(), queue: queue ? true : nil))
            var delay: UInt32 = 2_000
            let giveUp = ContinuousClock.now + .seconds(60)
            while true {
                do {
                    let result = try client.call(.send, params: params)
                    // --json: one result per message (session and number, to match `delivered` events).
                    if json { emit(PeerctlRenderer.json(result)) }
                    total += result.bytes
                    if result.queued { queued += 1 }
                    break
                } catch {
                    // A full queue is the daemon's backpressure: wait and retry.
                    guard case .daemon(let daemonError) = error, daemonError.code == .busy, ContinuousClock.now < giveUp else { throw error }
                    usleep(delay)
                    delay = min(delay * 2, 100_000)
                }
            }
        }
        if !json {
            let note = queued > 0 ? "; \(queued) queued until it is back" : ""
            emit("sent \(messages.count) message\(messages.count == 1 ? "" : "s") (\(total) bytes) to '\(TerminalText.escape(peer.name))'\(note)")
        }
        return 0
    }

    /// Takes messages: the daemon sends what waits in the inbox first, then
    /// live ones, and only as many as asked (the rest stay in the inbox).
    func receive(from selector: String?, count: Int?) throws(ControlClientError) -> Int32 {
        _ = try client.call(.subscribe, params: scoped(ControlParams(peer: selector, take: true, count: count)))
        var received = 0
        let terminal = isatty(1) == 1
        // Many messages come in one read: they go out in one write, once
        // nothing more is waiting or 64 KiB gathered (issue 25, point 4).
        var output: [UInt8] = []
        while count.map({ received < $0 }) ?? true {
            let (event, _) = try client.nextEvent()
            if event.type == .error {
                writeOut(output)
                printError(event.error?.message ?? "the daemon ended the subscription")
                return 1
            }
            guard event.type == .message, let message = event.message else { continue }
            received += 1
            if json {
                let line = Array(PeerctlRenderer.json(event).utf8)
                output += line
                if line.last != UInt8(ascii: "\n") { output.append(0x0A) }
            } else {
                append(message, terminal: terminal, to: &output)
            }
            if !client.hasReadAhead || output.count >= 64 * 1024 {
                writeOut(output)
                output.removeAll(keepingCapacity: true)
            }
        }
        writeOut(output)
        return 0
    }

    /// Prints and takes what waits in the inbox, a batch per request.
    func take(from selector: String?, count: Int?) throws(ControlClientError) -> Int32 {
        var taken = 0
        while count.map({ taken < $0 }) ?? true {
            let want = min(100, (count ?? Int.max) - taken)
            let result = try client.call(.take, params: scoped(ControlParams(peer: selector, max: want)))
            for message in result.messages {
                if json { emit(PeerctlRenderer.json(message)) } else { printMessage(message) }
            }
            taken += result.messages.count
            if result.messages.isEmpty || result.remaining == 0 { break }
        }
        if taken == 0 && !json { printError("the inbox holds no messages\(selector.map { " from '\($0)'" } ?? "")") }
        return 0
    }

    private func printMessage(_ message: MessageInfo) {
        var output: [UInt8] = []
        append(message, terminal: isatty(1) == 1, to: &output)
        writeOut(output)
    }

    /// Adds a message as printed, with a newline unless it ends in one: for
    /// a person's terminal escaped, where a peer's bytes must not drive the
    /// terminal; for pipes and files the very bytes sent, invalid UTF-8
    /// and all, so `send --lines` into `recv` is byte-identical.
    private func append(_ message: MessageInfo, terminal: Bool, to output: inout [UInt8]) {
        let sent = Data(base64Encoded: message.data).map { [UInt8]($0) } ?? []
        let shown = terminal ? Array(TerminalText.escape(String(decoding: sent, as: UTF8.self)).utf8) : sent
        output += shown
        if shown.last != UInt8(ascii: "\n") { output.append(0x0A) }
    }
}
