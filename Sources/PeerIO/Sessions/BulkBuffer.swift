import Synchronization

/// A buffer of bulk bytes handed from thread to thread and reused, never
/// copied (issue 44): a lane's read buffer (``LaneReader``) and a
/// received chunk on its way to disk (``WriteBuffers``).
///
/// Why a reference and not a plain `[UInt8]`: an array handed to another
/// thread and back is copied whole by its next write whenever any other
/// reference to it (a closure's capture, a report not yet released) is
/// still alive. For a buffer above malloc's mapping threshold that copy
/// maps fresh pages and faults in each of them: measured as one page
/// fault per 4 KiB received, a third of the receiving daemon's system
/// time during a send-file (docs/performance.md). The array here is held
/// by its mutex alone, so every write is in place.
///
/// One side uses a buffer at a time (whoever it was handed to); the
/// mutex is never contended, it only makes the hand-over safe.
final class BulkBuffer: Sendable {
    private let storage = Mutex<[UInt8]>([])

    /// An empty buffer; its first user sizes it.
    init() {}

    /// Runs `body` on the bytes, in place.
    func withBytes<Result>(_ body: (inout [UInt8]) -> Result) -> Result {
        storage.withLock { bytes in
            let result = body(&bytes)
            return result
        }
    }

    /// Replaces the contents with a copy of `source`, keeping the
    /// storage (no allocation once it is large enough).
    func fill(from source: UnsafeRawBufferPointer) {
        storage.withLock { bytes in
            bytes.removeAll(keepingCapacity: true)
            bytes.append(contentsOf: source)
        }
    }

    /// Runs `body` on the bytes, read only.
    func withUnsafeBytes<Result: Sendable>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        storage.withLock { bytes in
            let result = bytes.withUnsafeBytes { body($0) }
            return result
        }
    }

    /// The storage's capacity in bytes: what the buffer really costs.
    var capacity: Int { storage.withLock { $0.capacity } }
}
