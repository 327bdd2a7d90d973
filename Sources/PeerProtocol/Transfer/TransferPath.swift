/// A file's path inside a transfer, relative to the transfer's folder,
/// checked as it arrives (issue 12, point 3). A name is accepted as it is
/// or refused with a reason; it is never rewritten, so what the sender
/// offered is what lands, or nothing does.
package struct TransferPath: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The most bytes in one component (Linux's `NAME_MAX`).
    package static let maxComponentBytes = 255
    /// The most bytes in the whole path (Linux's `PATH_MAX`).
    package static let maxPathBytes = 4096

    /// The components, outermost first; none is empty, `.` or `..`.
    package let components: [String]

    /// The path as offered: components joined by `/`.
    package var description: String { components.joined(separator: "/") }

    /// Checks `bytes`, a name as it came off the wire (or read in place
    /// from an ``OfferList``).
    package static func check<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Result<TransferPath, TransferPathRefusal> {
        guard !bytes.isEmpty else { return .failure(.empty) }
        guard bytes.count <= maxPathBytes else { return .failure(.tooLong) }
        guard let text = String(validating: bytes, as: UTF8.self) else { return .failure(.notUTF8) }
        for scalar in text.unicodeScalars {
            if isControl(scalar) { return .failure(.controlCharacter) }
            if isInvisible(scalar) { return .failure(.invisibleCharacter) }
            if lookalikeSeparators.contains(scalar.value) { return .failure(.lookalikeSeparator) }
        }
        guard bytes.first != UInt8(ascii: "/") else { return .failure(.absolute) }
        let components = text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for component in components {
            if component.isEmpty { return .failure(.emptyComponent) }
            if component == "." || component == ".." { return .failure(.dotComponent) }
            if component.utf8.count > maxComponentBytes { return .failure(.tooLong) }
            if component.utf8.starts(with: reservedPrefix.utf8) { return .failure(.reservedName) }
        }
        // Compared as code units: equal Strings may still differ in form.
        guard text._nfcCodeUnits.elementsEqual(bytes) else { return .failure(.notNFC) }
        return .success(TransferPath(components: components))
    }

    /// Checks a name given as a String (its UTF-8 bytes).
    package static func check(_ text: String) -> Result<TransferPath, TransferPathRefusal> {
        check(Array(text.utf8))
    }

    /// The prefix of the names peerd gives its own files in a download
    /// folder (``TransferPathRefusal/reservedName``).
    package static let reservedPrefix = ".peerd-"

    /// Characters that draw nothing or reorder what is drawn: Bidi_Control
    /// (U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069),
    /// Default_Ignorable_Code_Point (zero-width characters, U+FEFF, soft
    /// hyphen, variation selectors, fillers, …), and the line and paragraph
    /// separators (general categories Zl and Zp).
    static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        if properties.isBidiControl || properties.isDefaultIgnorableCodePoint { return true }
        switch properties.generalCategory {
        case .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    /// Characters drawn like the solidus or the reverse solidus: fraction
    /// slash, division slash, set minus, big solidus and reverse solidus,
    /// the box-drawing diagonals, and the fullwidth forms.
    static let lookalikeSeparators: Set<UInt32> = [0x2044, 0x2215, 0x2216, 0x29F5, 0x29F8, 0x29F9, 0x2571, 0x2572, 0xFF0F, 0xFF3C, 0xFE68]

    /// C0 controls (NUL included), DEL, and C1 controls: they can hide or
    /// forge what a terminal shows, and NUL cuts a C path short.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
