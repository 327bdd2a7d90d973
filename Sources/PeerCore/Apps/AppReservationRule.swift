/// A reservation as configured (`--app-user chat=alice`, or `[app "chat"]`
/// with `user = alice`): by user or group name (or number), resolved to an
/// ``AppReservation`` when the daemon starts.
package enum AppReservationRule: Sendable, Equatable {
    /// Only this user (a name, or a uid in digits).
    case user(String)
    /// Only members of this group (a name, or a gid in digits).
    case group(String)
}
