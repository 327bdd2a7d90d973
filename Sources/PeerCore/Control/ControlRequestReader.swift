/// Reads the request lines scripts send by the thousand (`send` with a
/// peer and data, `take`, `channel`, …) without `JSONDecoder`, which a
/// profile of 100-byte `send`s showed costing a quarter of the daemon's
/// time (issue 25, point 4).
///
/// It covers a strict subset of JSON: the members `v` (the integer 1),
/// `id`, `method` and `params`, each at most once; parameters that are
/// strings without escapes, booleans, whole numbers or `null`. Any other
/// line (an escape, a float, an array, an unknown member, a wrong type, a
/// broken line) gets nil, and the caller goes the full way: the
/// ``ControlRequestCheck`` and `JSONDecoder`. So every answer, error or
/// not, is what the full way gives; ControlRequestReaderTests pins that
/// over a table of lines and their mutations.
package import PeerProtocol
package enum ControlRequestReader {
    /// The request in `line` (without its newline), or nil when the line
    /// is not in the covered subset.
    package static func read(_ line: [UInt8]) -> ControlRequest? {
        var cursor = JSONTextReader(line)
        var v: Int?, id: RequestID?, method: String?, params: ControlParams?, sawParams = false
        let complete = cursor.object { key, cursor in
            switch key {
            case "v":
                guard v == nil, cursor.literal("1") else { return false }
                v = 1
            case "id":
                guard id == nil else { return false }
                if let text = cursor.string() {
                    id = .string(text)
                } else if let value = cursor.int64() {
                    id = .number(value)
                } else {
                    return false
                }
            case "method":
                guard method == nil, let text = cursor.string() else { return false }
                method = text
            case "params":
                guard !sawParams else { return false }
                sawParams = true
                if cursor.literal("null") { return true }
                guard let read = readParams(&cursor) else { return false }
                params = read
            default:
                return false
            }
            return true
        }
        guard complete, cursor.atEnd, v != nil, let id, let method else { return nil }
        var request = ControlRequest(id: id, method: .status, params: params)
        request.method = method
        return request
    }

    private static func readParams(_ cursor: inout JSONTextReader) -> ControlParams? {
        var params = ControlParams()
        var seen: UInt32 = 0
        let complete = cursor.object { key, cursor in
            guard let field = Field(key), seen & field.bit == 0 else { return false }
            seen |= field.bit
            if cursor.literal("null") { return true }
            switch field {
            case .peer, .context, .contextData, .invitation, .data, .pairing, .code, .transfer, .name, .address, .app:
                guard let text = cursor.string() else { return false }
                switch field {
                case .peer: params.peer = text
                case .context: params.context = text
                case .contextData: params.contextData = text
                case .invitation: params.invitation = text
                case .data: params.data = text
                case .pairing: params.pairing = text
                case .code: params.code = text
                case .transfer: params.transfer = text
                case .name: params.name = text
                case .address: params.address = text
                default: params.app = text
                }
            case .queue, .take, .more, .all, .receive, .opened:
                guard let flag = cursor.bool() else { return false }
                switch field {
                case .queue: params.queue = flag
                case .take: params.take = flag
                case .more: params.more = flag
                case .all: params.all = flag
                case .receive: params.receive = flag
                default: params.opened = flag
                }
            case .since, .count, .max, .offset, .port:
                if field == .since {
                    guard let value = cursor.natural(UInt64.self) else { return false }
                    params.since = value
                    return true
                }
                guard let value = cursor.natural(Int.self) else { return false }
                switch field {
                case .count: params.count = value
                case .max: params.max = value
                case .offset: params.offset = value
                default: params.port = value
                }
            }
            return true
        }
        return complete ? params : nil
    }

    /// The parameters the reader covers, by their JSON kind; the others
    /// (`timeout`, `files`, `accept`, `peers`, `info`) go the full way.
    private enum Field: Int {
        case peer, context, contextData, invitation, data, pairing, code, transfer, name, address, app
        case queue, take, more, all, receive, opened
        case since, count, max, offset, port

        /// The field named `key`, if covered.
        init?(_ key: String) {
            switch key {
            case "peer": self = .peer
            case "data": self = .data
            case "app": self = .app
            case "queue": self = .queue
            case "take": self = .take
            case "count": self = .count
            case "since": self = .since
            case "context": self = .context
            case "contextData": self = .contextData
            case "invitation": self = .invitation
            case "pairing": self = .pairing
            case "code": self = .code
            case "transfer": self = .transfer
            case "name": self = .name
            case "address": self = .address
            case "more": self = .more
            case "all": self = .all
            case "receive": self = .receive
            case "opened": self = .opened
            case "max": self = .max
            case "offset": self = .offset
            case "port": self = .port
            default: return nil
            }
        }

        /// Its bit in the set of fields seen (each may come once).
        var bit: UInt32 { 1 << UInt32(rawValue) }
    }
}
