/// A type whose common lines can be read without `JSONDecoder`, the
/// reading counterpart of ``JSONTextEncodable``: `read` gives the value
/// `JSONDecoder` would give for the line, or nil when the line is outside
/// what it covers (then the caller decodes it with `JSONDecoder`).
package protocol JSONTextDecodable: Decodable {
    /// The value in `line` (without its newline), or nil to leave it to `JSONDecoder`.
    static func readJSONText(_ line: [UInt8]) -> Self?
}

extension ControlEnvelope: JSONTextDecodable {
    /// Event lines of the common kinds (``EventLineReader``).
    package static func readJSONText(_ line: [UInt8]) -> ControlEnvelope? { EventLineReader.read(line) }
}
