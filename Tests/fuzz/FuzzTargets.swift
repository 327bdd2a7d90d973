import Glibc
import FoundationEssentials
import PeerCore
import PeerProtocol
import PeerCrypto
import PeerSystem
import PeerTools

// libFuzzer harnesses for every parser of outside input, in one binary:
// FUZZ_TARGET picks the parser (Tests/fuzz/run.sh builds and runs them).
// Each must return without crashing, trapping or leaking for any input.

/// The parser this process fuzzes, from FUZZ_TARGET.
nonisolated(unsafe) let fuzzTarget: String = getenv("FUZZ_TARGET").map { String(cString: $0) } ?? "wire"

/// One Noise responder and initiator key, made once.
nonisolated(unsafe) let fuzzKeys: (NoiseKeyPair, NoiseKeyPair) = {
    try? Sodium.initialize()
    return (NoiseKeyPair.generate(), NoiseKeyPair.generate())
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    switch fuzzTarget {
    case "datagram":
        // The datagram path's header (issue 26): parsed from any bytes, a
        // header read is the bytes it came from; then the replay window
        // over counters the input names, eight bytes each.
        if let header = try? DatagramHeader.parse(bytes) {
            guard header.encoded == Array(bytes.prefix(DatagramHeader.length)) else { fatalError("a parsed header encodes to other bytes") }
        }
        // The body, once opened, is the sender's: parsed from any bytes, a
        // data body encodes back to the bytes it came from.
        if case .data(let app, let from)? = try? DatagramBody.parse(bytes) {
            var out: [UInt8] = []
            DatagramBody.encodeData(app: app, bytes[from...], into: &out)
            guard out == Array(bytes) else { fatalError("a parsed data body encodes to other bytes") }
        }
        var window = DatagramReplayWindow()
        for start in stride(from: 0, to: bytes.count - 7, by: 8) {
            let counter = bytes[start..<(start + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let fresh = window.check(counter) == .fresh
            guard window.accept(counter) == fresh else { fatalError("accept disagreed with check") }
            if fresh, window.check(counter) != .duplicate { fatalError("an accepted counter was not remembered") }
        }
    case "wire":
        // The frame reader over a stream, then the codec over each frame
        // and over the raw input (a decrypted plaintext is attacker-chosen).
        var reader = FrameReader()
        reader.maxFrame = 8192
        let half = bytes.count / 2
        let frames = ((try? reader.append(bytes[..<half])) ?? []) + ((try? reader.append(bytes[half...])) ?? [])
        for frame in frames { _ = try? WireCodec.decode(frame) }
        if let message = try? WireCodec.decode(bytes) {
            _ = WireCodec.encode(message)
            // An offer's names and sizes are a hostile peer's: checked without trapping.
            if case .bulk(.offer(_, _, _, _, let files)) = message { _ = OfferCheck.check(files) }
            // An app's name and number are a hostile peer's too.
            if case .app(let app) = message {
                var bindings = AppBindings()
                var assembler = MessageAssembler(maxMessage: 1 << 16)
                switch app {
                case .open(let number, let name): _ = bindings.peerBound(number, to: name)
                case .data(let number, let more, let bytes): _ = assembler.add(more: more, bytes: bytes, app: number)
                case .invite(let name, _, _), .accept(let name), .decline(let name, _, _), .leave(let name, _, _): _ = try? AppName(name)
                default: break
                }
            }
        }
        // The in-place reader of chunk and streamData heads agrees with the codec.
        let head = bytes.withUnsafeBytes { BulkDataHead.parse($0) }
        if let head {
            let data = Array(bytes[head.dataStart...])
            let expected: BulkMessage
            switch head.head {
            case .chunk(let flow, let file, let offset): expected = .chunk(flow, file: file, offset: offset, bytes: data)
            case .streamData(let flow): expected = .streamData(flow, bytes: data)
            }
            guard case .bulk(expected)? = try? WireCodec.decode(bytes) else { fatalError("BulkDataHead read a head the codec does not") }
        }
        var assembler = MessageAssembler(maxMessage: 1 << 16)
        for chunk in stride(from: 0, to: bytes.count, by: 97) { _ = assembler.add(more: true, bytes: Array(bytes[chunk..<min(bytes.count, chunk + 97)])) }
    case "handshake":
        // Message 1 to a responder, and message 2 to an initiator.
        var responder = try! NoiseHandshakeState(pattern: .xx, initiator: false, prologue: NoiseTransport.prologue, localStatic: fuzzKeys.0)
        if (try? responder.readMessage(bytes)) != nil { _ = try? responder.writeMessage([]) }
        var initiator = try! NoiseHandshakeState(pattern: .xx, initiator: true, prologue: NoiseTransport.prologue, localStatic: fuzzKeys.1)
        _ = try? initiator.writeMessage([])
        _ = try? initiator.readMessage(bytes)
    case "control":
        var lines = LineBuffer(maxLineBytes: 4096)
        for line in lines.append(bytes) ?? [] {
            if let request = try? JSONLines.decode(ControlRequest.self, from: line) { _ = ControlMethod(rawValue: request.method) }
            // The hand-written readers read a line as the full way does, or not at all.
            if let fast = ControlRequestReader.read(line) {
                precondition(ControlRequestCheck.check(line) == nil, "ControlRequestReader read a line ControlRequestCheck refuses")
                precondition(fast == (try? JSONLines.decodeWithFoundation(ControlRequest.self, from: line)), "ControlRequestReader and JSONDecoder disagree")
            }
            if let fast = EventLineReader.read(line) {
                let full = try? JSONLines.decodeWithFoundation(ControlEnvelope.self, from: line)
                precondition(full != nil && full?.v == fast.v && full?.id == nil && full?.error == nil && full?.event == fast.event,
                             "EventLineReader and JSONDecoder disagree")
            }
        }
        _ = try? JSONLines.decode(ControlRequest.self, from: bytes)
    case "config":
        // The file's bytes as peerd reads them: UTF-8 check, BOM, then entries.
        _ = ConfigFile.visible(String(decoding: bytes.prefix(512), as: UTF8.self))
        guard let text = try? ConfigFile.text(of: bytes) else { break }
        if let entries = try? ConfigFile.entries(text) {
            for entry in entries { _ = try? ConfigFile.arguments(for: entry) }
            _ = try? DaemonCommand.parse(entries.flatMap { (try? ConfigFile.arguments(for: $0)) ?? [] }, base: DaemonConfiguration(name: "fuzz"))
        }
    case "txt":
        // A DNS TXT record: length-prefixed strings, as Avahi hands them on.
        var entries: [TXTEntry] = []
        var index = 0
        while index < bytes.count {
            let length = Int(bytes[index])
            let end = min(bytes.count, index + 1 + length)
            entries.append(TXTEntry(raw: String(decoding: bytes[(index + 1)..<end], as: UTF8.self)))
            index = end
        }
        let key = ServiceKey(interfaceIndex: 2, family: .ipv4, name: String(decoding: bytes.prefix(63), as: UTF8.self), type: "_peerd._tcp", domain: "local")
        let service = ResolvedService(key: key, interfaceName: "eth0", hostName: "h.local", address: "169.254.1.1", addressFamily: .ipv4, port: 1, txt: entries)
        var registry = PeerRegistry(maxPeers: 4)
        _ = registry.apply(.resolved(service), now: .init(timeIntervalSince1970: 0), makeID: { .init() })
        _ = TerminalText.escape(key.name)
        _ = try? TXTRecord(peerID: String(repeating: "a", count: 32), info: entries)
    case "dns":
        // Wide-area DNS-SD (issue 46): a name's wire form as ldns hands it
        // on, and an instance's TXT strings (length-prefixed, from any
        // zone's writer) through the browser, lease and name and all.
        let name = DNSName(wire: bytes)
        _ = name?.presentation
        _ = name.map { DNSName(dotted: $0.description) }
        var strings: [[UInt8]] = []
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + 1 + Int(bytes[index]))
            strings.append(Array(bytes[(index + 1)..<end]))
            index = end
        }
        let label = String(decoding: bytes.prefix(63), as: UTF8.self)
        let instance = WideAreaInstance(port: 1, target: DNSName(["h", "example"])!, txt: strings,
                                        addresses: [.init(family: .ipv4, text: "192.0.2.1")], ttl: UInt32(bytes.count))
        _ = instance.displayName(label: label)
        _ = instance.leaseEnds
        var browser = WideAreaBrowser(domain: DNSName(["example"])!, serviceType: "_peerd._tcp", ownPeerID: String(repeating: "a", count: 32),
                                      maxInstances: 4, poll: 1, relist: 10)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        _ = browser.tick(now: now)
        _ = browser.serial(1, now: now)
        _ = browser.listed([label, "other"], now: now)
        _ = browser.resolved(label, instance, now: now)
        _ = browser.resolved(label, nil, now: now.addingTimeInterval(Double(bytes.first ?? 0)))
        _ = TSIGKeyFile.parse(String(decoding: bytes, as: UTF8.self))
    case "netlink":
        _ = NetlinkRouteParser.parse(bytes)
    case "disk":
        // The queue and inbox files as peerd reads them after a crash or a
        // bad sector: either format, any bytes.
        _ = QueueFileCodec.decode(bytes)
        _ = QueueFileCodec.decode(QueueFileCodec.header + bytes)
        _ = QueueFileCodec.decode(QueueFileCodec.header2 + bytes)
        // The inbox: the bytes as a whole file (header and marks included),
        // after a valid header, and as an earlier release's file.
        _ = InboxFileCodec.decode(InboxFileCodec.header + bytes)
        _ = InboxFileCodec.decode(InboxFileCodec.header1 + bytes)
        let file = InboxFileCodec.fileHeader(marks: [:]) + bytes
        let inbox = InboxFileCodec.decode(file)
        for entry in inbox.entries.prefix(64) {
            _ = InboxFileCodec.data(ofRecord: file, at: entry.offset, version: 2)
        }
    case "client":
        // What peerctl reads from tools and draws from peers: avahi-browse
        // output (peer-chosen names and TXT), an nft ruleset, routes,
        // avahi-daemon.conf, /proc tables, HOST[:PORT], terminal keys, and a
        // row named by the peer drawn into a frame of some size.
        let text = String(decoding: bytes, as: UTF8.self)
        _ = AvahiBrowseRecord.parse(text)
        let rules = NftablesRuleset(parsing: text)
        _ = rules.verdict(proto: "udp", port: 5353)
        _ = rules.verdict(proto: "tcp", port: 7717)
        _ = RouteFacts.route(ipRouteGet: text)
        _ = RouteFacts.defaultInterface(procNetRoute: text)
        _ = AvahiServerConfig(parsing: text).excludes("eth0")
        _ = SocketTable.inodes(boundTo: 5353, in: text)
        _ = try? PeerAddress.parse(String(text.prefix(400)))
        var keys = TopKeyDecoder()
        _ = keys.feed(bytes)
        let when = Date(timeIntervalSince1970: 0)
        let row = PeerSnapshot(id: UUID(), peerId: nil, name: String(text.prefix(300)), state: .connected,
                               endpoints: [Endpoint(interface: String(text.prefix(15)), family: .ipv6, address: "fe80::1", port: 1)],
                               info: ["k": String(text.prefix(255))], lastSeen: when, lost: false)
        var model = TopModel()
        model.load(peers: [row], invitations: [], pairings: [], transfers: [], queues: [])
        let frame = TopView.frame(model, TopInteraction(), width: 30 + bytes.count % 150, height: 8 + bytes.count % 40, now: when)
        _ = ScreenDiff.render(from: nil, to: frame, color: true)
    default:
        fatalError("unknown FUZZ_TARGET \(fuzzTarget): wire, handshake, control, config, txt, dns, netlink, disk, client, datagram")
    }
    return 0
}
