import Foundation

/// Waits for `condition`, turning the main actor over (what the code under
/// test posts to the main queue runs meanwhile), for at most `seconds`:
/// true once it holds, false when time ran out. The tests' one wait on an
/// event with a deadline, never a sleep that hopes.
@MainActor
func eventually(_ seconds: Double = 5, _ condition: () -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        guard Date() < deadline else { return false }
        try await Task.sleep(nanoseconds: 2_000_000)
    }
    return true
}
