import Glibc
import PeerCore
import PeerIO
import PeerProtocol

/// One blocking TCP connection speaking peerd's wire protocol with a key of
/// its own: the Noise XX handshake, then framed, encrypted messages.
final class ProbeConnection {
    let fd: Int32
    private var send: NoiseCipherState?
    private var receive: NoiseCipherState?
    private var frames = FrameReader()
    private var ready: [[UInt8]] = []

    /// Connects (waiting at most 5 s).
    init(address: String, port: UInt16) throws {
        let endpoint = Endpoint(interface: "", family: address.contains(":") ? .ipv6 : .ipv4, address: address, port: port)
        let descriptor = try TCPConnector.startConnect(to: endpoint)
        fd = descriptor.rawValue
        var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&pfd, 1, 5000) == 1, TCPConnector.finishConnect(descriptor) == nil else {
            close(fd)
            throw ProbeError("cannot connect to \(address):\(port)")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    }

    deinit { close(fd) }

    /// A fresh key, or the one kept in `$PROBE_KEY_FILE` (made there on
    /// first use): a peer whose key was stolen comes back as the same peer.
    static func probeKey() -> NoiseKeyPair {
        guard let path = getenv("PROBE_KEY_FILE").map({ String(cString: $0) }) else { return .generate() }
        if let bytes = try? AtomicFile.read(path, limit: 64), bytes.count == 32 { return NoiseKeyPair(secretKey: bytes) }
        let secret = Sodium.randomBytes(32)
        try? AtomicFile.write(path, contents: secret)
        return NoiseKeyPair(secretKey: secret)
    }

    /// Runs the handshake as initiator with a fresh key; returns the
    /// responder's peer id. `trailing` goes out in the same write as message 3,
    /// whose payload is this release's hello (docs/protocol.md §3): the
    /// probe speaks every feature, so the daemon takes what it sends.
    func handshake(trailing: [UInt8] = []) throws -> String {
        var state = try NoiseHandshakeState(pattern: .xx, initiator: true, prologue: NoiseTransport.prologue, localStatic: Self.probeKey())
        try writeFrame(try state.writeMessage([]))
        _ = try state.readMessage(try readFrame(timeout: 5))
        try writeFrame(try state.writeMessage(PeerHello.ours(fastSHA256: false).encode()), trailing: trailing)
        let split = try state.split()
        send = split.send
        receive = split.receive
        return IdentityKey.fingerprint(of: state.remoteStatic ?? [])
    }

    /// Encrypts and sends one message.
    func send(_ message: WireMessage) throws {
        try sendPlaintext(WireCodec.encode(message))
    }

    /// Encrypts and sends any plaintext, well-formed or not.
    func sendPlaintext(_ plaintext: [UInt8]) throws {
        guard var cipher = send else { throw ProbeError("no session yet") }
        let ciphertext = try cipher.encrypt(ad: [], plaintext)
        send = cipher
        try writeFrame(ciphertext)
    }

    /// The next message, or nil when the connection ends or `timeout` passes.
    func next(timeout: Double) throws -> WireMessage? {
        guard let frame = try? readFrame(timeout: timeout), var cipher = receive else { return nil }
        let plaintext = try cipher.decrypt(ad: [], frame)
        receive = cipher
        return try WireCodec.decode(plaintext)
    }

    /// Writes without waiting; false when the socket buffer is full.
    func trySend(_ message: WireMessage) throws -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&pfd, 1, 0) == 1, pfd.revents & Int16(POLLOUT) != 0 else { return false }
        try send(message)
        return true
    }

    /// Whether the other side has closed (EOF or reset), waiting up to `timeout`.
    func closedByPeer(timeout: Double) -> Bool {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(timeout * 1000)) == 1 else { return false }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) <= 0 || pfd.revents & Int16(POLLHUP | POLLERR) != 0
    }

    func writeFrame(_ message: [UInt8], trailing: [UInt8] = []) throws {
        let bytes = WireCodec.frame(message) + trailing
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw ProbeError("the connection was closed while writing") }
            offset += n
        }
    }

    private func readFrame(timeout: Double) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while ready.isEmpty {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, Int32(timeout * 1000)) == 1 else { throw ProbeError("nothing within \(timeout) s") }
            let n = read(fd, &buffer, buffer.count)
            guard n > 0 else { throw ProbeError("the connection was closed") }
            ready += try frames.append(buffer[0..<n])
        }
        return ready.removeFirst()
    }
}
