extension TakeResult: JSONTextEncodable {
    /// Every member, in sorted order.
    package func writeJSONText(to writer: inout JSONTextWriter) -> Bool {
        writer.openObject()
        writer.key("messages")
        writer.openArray()
        for message in messages {
            writer.element()
            guard message.writeJSONText(to: &writer) else { return false }
        }
        writer.closeArray()
        writer.key("remaining")
        writer.integer(remaining)
        writer.closeObject()
        return true
    }
}
