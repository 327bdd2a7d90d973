/// A file's path inside a transfer, relative to the transfer's folder,
/// checked as it arrives (issue 12, point 3). A name is accepted as it is
/// or refused with a reason; it is never rewritten, so what the sender
/// offered is what lands, or nothing does.
public struct TransferPath: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The most bytes in one component (Linux's `NAME_MAX`).
    public static let maxComponentBytes = 255
    /// The most bytes in the whole path (Linux's `PATH_MAX`).
    public static let maxPathBytes = 4096

    /// The components, outermost first; none is empty, `.` or `..`.
    public let components: [String]

    /// The path as offered: components joined by `/`.
    public var description: String { components.joined(separator: "/") }

    /// Checks `bytes`, a name as it came off the wire.
    public static func check(_ bytes: [UInt8]) -> Result<TransferPath, TransferPathRefusal> {
        guard !bytes.isEmpty else { return .failure(.empty) }
        guard bytes.count <= maxPathBytes else { return .failure(.tooLong) }
        guard let text = String(validating: bytes, as: UTF8.self) else { return .failure(.notUTF8) }
        for scalar in text.unicodeScalars where isControl(scalar) { return .failure(.controlCharacter) }
        guard bytes.first != UInt8(ascii: "/") else { return .failure(.absolute) }
        let components = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for component in components {
            if component.isEmpty { return .failure(.emptyComponent) }
            if component == "." || component == ".." { return .failure(.dotComponent) }
            if component.utf8.count > maxComponentBytes { return .failure(.tooLong) }
        }
        // Compared as code units: equal Strings may still differ in form.
        guard Array(text._nfcCodeUnits) == bytes else { return .failure(.notNFC) }
        return .success(TransferPath(components: components))
    }

    /// Checks a name given as a String (its UTF-8 bytes).
    public static func check(_ text: String) -> Result<TransferPath, TransferPathRefusal> {
        check(Array(text.utf8))
    }

    /// C0 controls (NUL included), DEL, and C1 controls: they can hide or
    /// forge what a terminal shows, and NUL cuts a C path short.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
