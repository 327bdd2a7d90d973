import Glibc

/// Kernel interface names and indexes.
package enum InterfaceNames {
    /// The index of `name`; throws when there is no such interface.
    package static func index(of name: String) throws(SystemError) -> Int32 {
        let index = if_nametoindex(name)
        guard index != 0 else { throw SystemError("if_nametoindex", errno: errno == 0 ? ENODEV : errno, context: name) }
        return Int32(index)
    }

    /// The name of interface `index`, or `if<index>` when it has gone.
    package static func name(of index: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: Int(IF_NAMESIZE) + 1)
        guard index > 0, if_indextoname(UInt32(index), &buffer) != nil else { return "if\(index)" }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
