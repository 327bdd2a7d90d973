import FoundationEssentials

/// Reads the event lines a busy client gets by the thousand (`message`,
/// `delivered`, `undelivered`) without `JSONDecoder`: a profile of
/// `peerctl recv` showed it spending three quarters of its time decoding
/// them (issue 25, point 4).
///
/// It takes `{"event":{…},"v":N}` whose event has only `seq`, `time`,
/// `type`, `message`, `delivery` and `detail`, in the subset
/// ``JSONTextReader`` covers. Any other line gets nil, and the caller
/// decodes it with `JSONDecoder`, which reads every line the same way
/// (EventLineReaderTests pins that over a table and its mutations).
package enum EventLineReader {
    /// The envelope of the event line `line`, or nil when it is not in the
    /// covered subset.
    package static func read(_ line: [UInt8]) -> ControlEnvelope? {
        var reader = JSONTextReader(line)
        var v: Int?, event: ControlEvent?
        let complete = reader.object { key, reader in
            switch key {
            case "v":
                guard v == nil, let value = reader.int64().flatMap({ Int(exactly: $0) }) else { return false }
                v = value
            case "event":
                guard event == nil, let read = readEvent(&reader) else { return false }
                event = read
            default:
                return false
            }
            return true
        }
        guard complete, reader.atEnd, let v, let event else { return nil }
        return ControlEnvelope(v: v, id: nil, error: nil, event: event)
    }

    private static func readEvent(_ reader: inout JSONTextReader) -> ControlEvent? {
        var seq: UInt64?, time: Date?, type: EventKind?
        var message: MessageInfo?, delivery: DeliveryInfo?, detail: String?
        var seen = KeysSeen()
        let complete = reader.object { key, reader in
            guard seen.first(key, of: ["seq", "time", "type", "message", "delivery", "detail"]) else { return false }
            switch key {
            case "seq": seq = reader.natural(UInt64.self); return seq != nil
            case "time": time = reader.date(); return time != nil
            case "type": type = reader.string().flatMap(EventKind.init(rawValue:)); return type != nil
            case "message":
                if reader.literal("null") { return true }
                message = readMessage(&reader)
                return message != nil
            case "delivery":
                if reader.literal("null") { return true }
                delivery = readDelivery(&reader)
                return delivery != nil
            case "detail":
                if reader.literal("null") { return true }
                detail = reader.string()
                return detail != nil
            default: return false
            }
        }
        guard complete, let seq, let time, let type else { return nil }
        return ControlEvent(seq: seq, type: type, time: time, message: message, delivery: delivery, detail: detail)
    }

    private static func readMessage(_ reader: inout JSONTextReader) -> MessageInfo? {
        var data: String?, size: Int?
        var message = MessageInfo(from: nil, data: "", size: 0)
        var seen = KeysSeen()
        let complete = reader.object { key, reader in
            guard seen.first(key, of: ["data", "size", "from", "peerId", "inbox", "received", "app"]) else { return false }
            let null = key != "data" && key != "size" && reader.literal("null")
            if null { return ["from", "peerId", "inbox", "received", "app"].contains(key) }
            switch key {
            case "data": data = reader.string(); return data != nil
            case "size": size = reader.int64().flatMap { Int(exactly: $0) }; return size != nil
            case "from": message.from = reader.uuid(); return message.from != nil
            case "peerId": message.peerId = reader.string(); return message.peerId != nil
            case "inbox": message.inbox = reader.natural(UInt64.self); return message.inbox != nil
            case "received": message.received = reader.date(); return message.received != nil
            case "app": message.app = reader.string(); return message.app != nil
            default: return false
            }
        }
        guard complete, let data, let size else { return nil }
        message.data = data
        message.size = size
        return message
    }

    private static func readDelivery(_ reader: inout JSONTextReader) -> DeliveryInfo? {
        var session: Int?, through: UInt64?
        var from: UInt64?, app: String?, text: String?
        var seen = KeysSeen()
        let complete = reader.object { key, reader in
            guard seen.first(key, of: ["session", "through", "from", "app", "text"]) else { return false }
            let null = key != "session" && key != "through" && reader.literal("null")
            if null { return ["from", "app", "text"].contains(key) }
            switch key {
            case "session": session = reader.int64().flatMap { Int(exactly: $0) }; return session != nil
            case "through": through = reader.natural(UInt64.self); return through != nil
            case "from": from = reader.natural(UInt64.self); return from != nil
            case "app": app = reader.string(); return app != nil
            case "text": text = reader.string(); return text != nil
            default: return false
            }
        }
        guard complete, let session, let through else { return nil }
        var delivery = DeliveryInfo(session: session, through: through)
        delivery.from = from
        delivery.app = app
        delivery.text = text
        return delivery
    }

    /// Which of an object's known keys were read: each may come once.
    private struct KeysSeen {
        private var bits: UInt32 = 0

        /// True when `key` is one of `known` (at most 32) and is here for
        /// the first time.
        mutating func first(_ key: String, of known: [String]) -> Bool {
            guard let index = known.firstIndex(of: key) else { return false }
            let bit: UInt32 = 1 << UInt32(index)
            guard bits & bit == 0 else { return false }
            bits |= bit
            return true
        }
    }
}
