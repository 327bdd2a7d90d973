/// A received file whose end came, waiting to be placed
/// (``IncomingTransfers/place(_:of:)``).
@MainActor
struct Placement {
    /// The most files placed in one batch: one flush of the journal covers
    /// them, and the main actor hears of them together.
    static let batch = 64

    /// The file and its transfer.
    let file: IncomingFile
    let transfer: IncomingTransfer
    /// Its last step, as the disk queue takes it.
    let step: PartialFile.Finishing
}
