import Dispatch

/// Keeps the signal sources alive for the process lifetime.
@MainActor
enum SignalSources {
    private static var sources: [any DispatchSourceSignal] = []

    /// Retains `source`.
    static func keep(_ source: any DispatchSourceSignal) { sources.append(source) }
}
