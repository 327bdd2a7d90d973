import Glibc

/// The machine's host name, for the default display name.
package enum HostName {
    /// The first label of `gethostname()`, or `peerd` if there is none.
    package static func short() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "peerd" }
        let name = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let label = name.split(separator: ".").first.map(String.init) ?? ""
        return label.isEmpty ? "peerd" : label
    }
}
