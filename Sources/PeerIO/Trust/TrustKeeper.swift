import FoundationEssentials
import PeerCore

/// What the daemon believes about trust, and the one way to change it.
///
/// ``document`` changes only after the new file is durable: a change is
/// written by the trust worker (a ``DiskWorker``, off the main actor), and
/// applied here when the write succeeded. Changes are written one at a
/// time, in order, each made from the document the one before it left, so
/// none is lost to another written at the same moment.
@MainActor
package final class TrustKeeper {
    /// A change: the next document made from the current one, or nil when
    /// there is nothing to change.
    package typealias Change = @MainActor (TrustDocument) -> TrustDocument?
    /// How a change ended: true when written, false when there was nothing
    /// to change, or the write's error.
    package typealias Done = @MainActor (Result<Bool, SystemError>) -> Void

    /// What is trusted: only a durable write changes it.
    package private(set) var document: TrustDocument
    private let worker: DiskWorker<TrustStore>
    private var waiting: [(change: Change, done: Done)] = []
    private var writing = false

    /// Believes what `store` held when opened, and writes through it.
    package init(store: TrustStore) {
        document = store.document
        worker = DiskWorker(label: "peerd.trust", state: store)
    }

    /// Queues `change`; `done` is called on the main actor once it is
    /// written (or found to change nothing, or failed).
    package func change(_ change: @escaping Change, then done: @escaping Done = { _ in }) {
        waiting.append((change, done))
        writeNext()
    }

    /// Waits for the write under way, if any (at shutdown: a change whose
    /// client was not answered yet may be cut, one being written is not).
    package func finishWriting() {
        worker.runAndWait { _ in }
    }

    /// Whether a change is waiting or being written.
    package var isBusy: Bool { writing || !waiting.isEmpty }

    private func writeNext() {
        guard !writing, !waiting.isEmpty else { return }
        let (change, done) = waiting.removeFirst()
        guard let next = change(document) else {
            done(.success(false))
            writeNext()
            return
        }
        writing = true
        worker.run({ store in
            Result<Void, SystemError> { () throws(SystemError) in try store.write(next) }
        }, then: { [weak self] result in
            guard let self else { return }
            self.writing = false
            switch result {
            case .success:
                self.document = next
                done(.success(true))
            case .failure(let error):
                done(.failure(error))
            }
            self.writeNext()
        })
    }
}
