import PeerCore
import PeerProtocol

/// How a client's transfer id names a transfer: a prefix of its flow's
/// hex that matches exactly one.
enum TransferIDMatch {
    /// The one transfer of `table` whose id starts with `id`, if exactly one does.
    static func find<T>(_ id: String, in table: [FlowID: T]) -> T? {
        let matches = table.filter { $0.key.description.hasPrefix(id.lowercased()) && !id.isEmpty }
        return matches.count == 1 ? matches.first?.value : nil
    }
}
