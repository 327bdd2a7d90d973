import FoundationEssentials

/// A finished transfer as its notification's buttons need it
/// (``NotificationPlanner``): its files still in the service's downloads
/// (`folder` there, for "Save to Downloads"), or moved into a folder of
/// the user's (for "Open folder").
enum Finished: Sendable, Equatable {
    /// Landed, not moved yet.
    case waiting(peer: UUID, name: String, folder: String)
    /// Moved into `into`.
    case moved(into: String)
}
