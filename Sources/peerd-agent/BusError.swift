/// A D-Bus call that failed: which, and what sd-bus or the peer said.
struct BusError: Error, CustomStringConvertible, Sendable {
    /// The step (`sd_bus_open_user`, `Notify`, …).
    let step: String
    /// The negative errno sd-bus returned, or 0 for a D-Bus error reply.
    let code: Int32
    /// The D-Bus error's name and message, when there was one.
    let detail: String

    /// What went wrong, in one line.
    var description: String {
        let errno = code < 0 ? String(cString: strerror(-code)) : ""
        return "\(step): \([errno, detail].filter { !$0.isEmpty }.joined(separator: ": "))"
    }
}

import Glibc
