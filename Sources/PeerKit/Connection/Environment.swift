import Glibc

/// The process environment, read once per call (no Foundation needed).
public enum Environment {
    /// Every variable of this process.
    public static var current: [String: String] {
        var found: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                found[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return found
    }
}
