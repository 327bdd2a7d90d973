extension DeliveryInfo: JSONTextEncodable {
    /// Every member, in sorted order.
    package func writeJSONText(to writer: inout JSONTextWriter) -> Bool {
        writer.openObject()
        if let app {
            writer.key("app")
            writer.string(app)
        }
        if let from {
            writer.key("from")
            writer.integer(from)
        }
        writer.key("session")
        writer.integer(session)
        if let text {
            writer.key("text")
            writer.string(text)
        }
        writer.key("through")
        writer.integer(through)
        writer.closeObject()
        return true
    }
}
