extension SendResult: JSONTextEncodable {
    /// Every member, in sorted order.
    package func writeJSONText(to writer: inout JSONTextWriter) -> Bool {
        writer.openObject()
        writer.key("bytes")
        writer.integer(bytes)
        if let number {
            writer.key("number")
            writer.integer(number)
        }
        writer.key("queued")
        writer.bool(queued)
        if let session {
            writer.key("session")
            writer.integer(session)
        }
        writer.closeObject()
        return true
    }
}
