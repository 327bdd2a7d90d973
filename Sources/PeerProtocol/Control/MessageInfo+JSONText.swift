extension MessageInfo: JSONTextEncodable {
    /// Every member, in sorted order.
    package func writeJSONText(to writer: inout JSONTextWriter) -> Bool {
        writer.openObject()
        if let app {
            writer.key("app")
            writer.string(app)
        }
        writer.key("data")
        writer.string(data)
        if let from {
            writer.key("from")
            writer.uuid(from)
        }
        if let inbox {
            writer.key("inbox")
            writer.integer(inbox)
        }
        if let peerId {
            writer.key("peerId")
            writer.string(peerId)
        }
        if let received {
            writer.key("received")
            writer.date(received)
        }
        writer.key("size")
        writer.integer(size)
        writer.closeObject()
        return true
    }
}
