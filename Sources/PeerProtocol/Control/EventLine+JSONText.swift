extension EventLine: JSONTextEncodable {
    /// `{"event":…,"v":1}`, when the event has a hand-written path.
    package func writeJSONText(to writer: inout JSONTextWriter) -> Bool {
        writer.openObject()
        writer.key("event")
        guard event.writeJSONText(to: &writer) else { return false }
        writer.key("v")
        writer.integer(v)
        writer.closeObject()
        return true
    }
}
