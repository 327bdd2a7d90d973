extension ControlEvent: JSONTextEncodable {
    /// Events that carry no more than `delivery`, `detail` and `message`
    /// (`message`, `delivered`, `undelivered`: the ones a busy data plane
    /// sends by the thousand); any other member leaves it to `JSONEncoder`.
    package func writeJSONText(to writer: inout JSONTextWriter) -> Bool {
        guard peer == nil, error == nil, reason == nil, invitation == nil, mismatch == nil, pairing == nil,
              pairingFailure == nil, stored == nil, transfer == nil, app == nil else { return false }
        writer.openObject()
        if let delivery {
            writer.key("delivery")
            guard delivery.writeJSONText(to: &writer) else { return false }
        }
        if let detail {
            writer.key("detail")
            writer.string(detail)
        }
        if let message {
            writer.key("message")
            guard message.writeJSONText(to: &writer) else { return false }
        }
        writer.key("seq")
        writer.integer(seq)
        writer.key("time")
        writer.date(time)
        writer.key("type")
        writer.string(type.rawValue)
        writer.closeObject()
        return true
    }
}
