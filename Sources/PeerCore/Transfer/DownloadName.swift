/// The name a received file lands under (issue 12, point 2): its own, or,
/// when that is taken, the first free of `name (1).ext`, `name (2).ext`, …
/// Nothing is ever overwritten.
package enum DownloadName {
    /// The most numbered names tried before giving up.
    package static let maxTries = 10_000

    /// The first name from `name` that `isTaken` says is free, or nil
    /// after ``maxTries`` numbered ones.
    package static func free(_ name: String, isTaken: (String) -> Bool) -> String? {
        guard isTaken(name) else { return name }
        let (stem, suffix) = split(name)
        for number in 1...maxTries {
            let candidate = "\(stem) (\(number))\(suffix)"
            if !isTaken(candidate) { return candidate }
        }
        return nil
    }

    /// `photo.jpg` → (`photo`, `.jpg`); `archive.tar.gz` → (`archive.tar`,
    /// `.gz`); a leading dot (`.profile`) or none → the whole name, no suffix.
    private static func split(_ name: String) -> (stem: String, suffix: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[dot...]))
    }
}
