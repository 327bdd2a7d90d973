/// A value that can write its own JSON text, the same bytes `JSONEncoder`
/// writes for it (see ``JSONTextWriter``). Only the hot lines of the
/// control protocol have it: `message` and `delivered` events, and the
/// `send` and `take` results.
package protocol JSONTextEncodable: Encodable {
    /// Writes the value's JSON text, or returns false when this value has
    /// a shape the hand-written path does not cover (then the caller drops
    /// what was written and uses `JSONEncoder`).
    func writeJSONText(to writer: inout JSONTextWriter) -> Bool
}
