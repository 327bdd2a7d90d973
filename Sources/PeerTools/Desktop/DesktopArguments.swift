/// The desktop programs' command lines (`peerd-agent`, `peerd-gtk`):
/// `--help`, and options that each take one value. Pure, so both programs
/// parse alike and a table tests it.
package enum DesktopArguments {
    /// What a command line asks for.
    package enum Parsed: Equatable, Sendable {
        /// `--help` (or `-h`): print the usage and exit 0.
        case help
        /// Each option given, with its value (the last one wins), and the
        /// other words (files, where the program takes them), in order.
        case options([String: String], files: [String])
    }

    /// Parses `words` (the arguments after the program's name), where
    /// each of `options` takes a value, and other words are files where
    /// `files` allows them (after `--`, every word is one); an unknown
    /// option, or one without its value, is the error to print before the usage.
    package static func parse(_ words: [String], options: Set<String>, files allowed: Bool = false) -> Result<Parsed, UsageMistake> {
        var values: [String: String] = [:]
        var files: [String] = []
        var rest = words[...]
        while let word = rest.popFirst() {
            if word == "--", allowed {
                files += rest
                break
            }
            if word == "--help" || word == "-h" { return .success(.help) }
            if allowed, !word.hasPrefix("-") {
                files.append(word)
                continue
            }
            guard options.contains(word) else { return .failure(UsageMistake(text: "unknown argument '\(word)'")) }
            guard let value = rest.popFirst(), !value.isEmpty else { return .failure(UsageMistake(text: "\(word) needs a value")) }
            values[word] = value
        }
        return .success(.options(values, files: files))
    }

    /// A command line that cannot be used, and why.
    package struct UsageMistake: Error, Equatable, Sendable {
        /// What is wrong, in one line.
        package let text: String
    }
}
