import Dispatch
import FoundationEssentials
import Glibc
import PeerKit
import Synchronization

/// Probes that drive PeerKit against a real daemon, for the lab tests of
/// its flows (Tests/integration/example_tests.sh): a channel both ways, a
/// file with its progress, a pipe.
enum PeerKitProbes {
    /// Runs `body` to the end from this synchronous probe (internal for
    /// `PeerKitDatagramProbes.swift`, as is ``peer(_:named:)``).
    static func wait(_ body: @escaping @Sendable () async throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        let failure = FailureBox()
        Task {
            do { try await body() } catch { failure.set("\(error)") }
            done.signal()
        }
        done.wait()
        if let message = failure.message { throw ProbeFailure(message: message) }
    }

    /// The UUID of the row named `name`.
    static func peer(_ client: PeerClient, named name: String) async throws -> UUID {
        guard let row = try await client.peers().first(where: { $0.name == name }) else { throw ProbeFailure(message: "no peer named \(name)") }
        return row.id
    }

    /// `peerkit-channel SOCK PEER COUNT`: sends COUNT messages on a
    /// PeerChannel while reading COUNT back (the peer runs
    /// `peerkit-echo`), checking their order.
    static func channel(socket: String, peer name: String, count: Int) throws {
        try wait {
            let client = try await PeerClient.connect(socket: socket)
            let channel = try await client.channel(to: try await peer(client, named: name))
            let reader = Task { () throws -> Int in
                var got = 0
                for try await message in channel {
                    guard String(decoding: message, as: UTF8.self) == "m\(got + 1)" else {
                        throw ProbeFailure(message: "message \(got + 1) came as \(String(decoding: message, as: UTF8.self))")
                    }
                    got += 1
                    if got == count { break }
                }
                return got
            }
            for number in 1...count { try await channel.send(Array("m\(number)".utf8)) }
            let received = try await reader.value
            let info = try await channel.close()
            Probes.say("sent=\(info.sent) acknowledged=\(info.acknowledged) received=\(received) state=\(info.state)")
        }
    }

    /// `peerkit-echo SOCK PEER COUNT`: opens a PeerChannel, says `ready`,
    /// and sends back each of COUNT messages.
    static func echo(socket: String, peer name: String, count: Int) throws {
        try wait {
            let client = try await PeerClient.connect(socket: socket)
            let channel = try await client.channel(to: try await peer(client, named: name))
            Probes.say("ready")
            var echoed = 0
            for try await message in channel {
                try await channel.send(message)
                echoed += 1
                if echoed == count { break }
            }
            let info = try await channel.close()
            Probes.say("echoed=\(echoed) sent=\(info.sent) acknowledged=\(info.acknowledged) state=\(info.state)")
        }
    }

    /// `peerkit-events SOCK COUNT`: prints COUNT items of PeerKit's event
    /// sequence, one a line: `event TYPE` or `gap REASON after N`.
    static func events(socket: String, count: Int) throws {
        try wait {
            let client = try await PeerClient.connect(socket: socket)
            Probes.say("ready")
            var seen = 0
            for try await item in client.events() {
                switch item {
                case .event(let event): Probes.say("event \(event.type.rawValue)")
                case .gap(let gap): Probes.say("gap \(gap.reason.rawValue) after \(gap.after)")
                }
                seen += 1
                if seen == count { break }
            }
        }
    }

    /// `peerkit-file SOCK PEER PATH`: sends PATH and prints each state.
    static func file(socket: String, peer name: String, path: String) throws {
        try wait {
            let client = try await PeerClient.connect(socket: socket)
            let transfer = try await client.sendFile(path, to: try await peer(client, named: name))
            var states: [String] = []
            for try await info in transfer.progress { states.append(info.state.rawValue) }
            Probes.say("states=\(states.joined(separator: ",")) last=\(states.last ?? "none")")
        }
    }

    /// `peerkit-pipe SOCK PEER NAME TEXT`: writes TEXT into a pipe named
    /// NAME, ends its side, and prints what the peer sent back.
    static func pipe(socket: String, peer name: String, stream: String, text: String) throws {
        try wait {
            let client = try await PeerClient.connect(socket: socket)
            let pipe = try await client.pipe(to: try await peer(client, named: name), name: stream)
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { Glibc.write(pipe.descriptor.rawValue, $0.baseAddress, $0.count) }
            shutdown(pipe.descriptor.rawValue, Int32(SHUT_WR))
            var got: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = Glibc.read(pipe.descriptor.rawValue, &buffer, buffer.count)
                if n <= 0 { break }
                got += buffer[0..<n]
            }
            let info = try await pipe.finished()
            Probes.say("got=\(String(decoding: got, as: UTF8.self)) state=\(info.state)")
        }
    }
}

/// A probe's failure, said on standard error.
struct ProbeFailure: Error, CustomStringConvertible {
    /// What went wrong.
    var message: String
    /// The words.
    var description: String { message }
}

/// The failure of the task a synchronous probe waits for: written by the
/// task before it signals, read after the wait, behind a lock the
/// compiler can check.
private final class FailureBox: Sendable {
    private let text = Mutex<String?>(nil)
    /// What went wrong, once the task has said.
    var message: String? { text.withLock { $0 } }
    /// Says what went wrong.
    func set(_ words: String) { text.withLock { $0 = words } }
}
