extension ControlResponse: JSONTextEncodable {
    /// A success whose result has a hand-written path:
    /// `{"id":…,"result":…,"v":1}`. Errors go through `JSONEncoder`.
    package func writeJSONText(to writer: inout JSONTextWriter) -> Bool {
        guard error == nil, let result = result as? any JSONTextEncodable else { return false }
        writer.openObject()
        writer.key("id")
        switch id {
        case .number(let number): writer.integer(number)
        case .string(let text): writer.string(text)
        case nil: writer.null()
        }
        writer.key("result")
        guard result.writeJSONText(to: &writer) else { return false }
        writer.key("v")
        writer.integer(v)
        writer.closeObject()
        return true
    }
}
