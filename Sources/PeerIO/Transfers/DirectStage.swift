import Glibc
import PeerCore
import PeerSystem
import Synchronization

/// The shell of ``StagedWrites`` for one received file (issue 44): a second
/// descriptor of the partial file opened with `O_DIRECT`, the aligned stage
/// its bytes wait in, and the plan. Used on ``PartialFile/writer`` (and by
/// the disk queue once settled), always under the partial file's lock.
///
/// Bounded: a stage is ``size`` bytes, and ``StageSlots`` counts them per
/// peer and for the host; a file that finds no slot, or is smaller than
/// ``smallestFile``, is written through the page cache as before. If the
/// filesystem refuses a direct write (tmpfs, `data=journal`), the bytes go
/// through the page cache, and so does the rest of the file.
final class DirectStage {
    /// A stage's size: 1 MiB requests reached this disk's speed (1.4 GB/s
    /// against 1.5 for 4 MiB, `dd oflag=direct`), and a stage of a 1 GiB
    /// file's block size (1 MiB) never holds bytes of two blocks.
    static let size = 1 << 20
    /// Files smaller than this are written through the page cache: their
    /// bytes would mostly be the unaligned tail.
    static let smallestFile: Int64 = 8 << 20

    private static let slots = Mutex(StageSlots())

    private let direct: FileDescriptor
    /// The peer whose slot this stage holds.
    private let owner: String
    private let buffer: AlignedBuffer
    private var plan = StagedWrites(capacity: size)
    /// False once the filesystem refused a direct write.
    private var directWorks = true

    /// A stage for the partial file `name` in `folder`, of `fileSize`
    /// bytes, on `owner`'s slots (the sending peer's id); nil when the
    /// file is small, no slot is free, or the filesystem cannot open it
    /// for direct writes.
    static func open(_ name: String, in folder: FileDescriptor, fileSize: Int64, owner: String) -> DirectStage? {
        guard fileSize >= smallestFile, slots.withLock({ $0.take(peer: owner) }) else { return nil }
        guard let direct = try? folder.openAt(name, flags: O_WRONLY | FileDescriptor.directFlag) else {
            slots.withLock { $0.giveBack(peer: owner) }
            return nil
        }
        guard let buffer = try? AlignedBuffer(count: size) else {
            direct.close()
            slots.withLock { $0.giveBack(peer: owner) }
            return nil
        }
        return DirectStage(direct: direct, buffer: buffer, owner: owner)
    }

    private init(direct: FileDescriptor, buffer: AlignedBuffer, owner: String) {
        (self.direct, self.buffer, self.owner) = (direct, buffer, owner)
    }

    deinit {
        direct.close()
        let owner = owner
        Self.slots.withLock { $0.giveBack(peer: owner) }
    }

    /// How many stages exist now (for tests).
    static var count: Int { slots.withLock { $0.total } }

    /// `bytes` arrive for `offset`; what is not staged goes through `data`.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64, data: FileDescriptor) throws(SystemError) {
        try perform(plan.write(offset: offset, count: bytes.count), source: bytes, data: data)
    }

    /// Writes everything staged (before a block is recorded, and before the
    /// file is finished or closed).
    func flush(data: FileDescriptor) throws(SystemError) {
        try perform(plan.flush(), source: UnsafeRawBufferPointer(start: nil, count: 0), data: data)
    }

    private func perform(_ actions: [StagedWrites.Action], source: UnsafeRawBufferPointer, data: FileDescriptor) throws(SystemError) {
        for action in actions {
            switch action {
            case .stage(let from, let count, let to):
                (buffer.bytes.baseAddress! + to).copyMemory(from: source.baseAddress! + from, byteCount: count)
            case .writeStage(let from, let count, let at, let direct):
                let bytes = UnsafeRawBufferPointer(rebasing: buffer.bytes[from..<from + count])
                try write(bytes, at: at, direct: direct, data: data)
            case .writeThrough(let from, let count, let at):
                try data.write(UnsafeRawBufferPointer(rebasing: source[from..<from + count]), at: at)
            }
        }
    }

    private func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64, direct wanted: Bool, data: FileDescriptor) throws(SystemError) {
        if wanted && directWorks {
            do throws(SystemError) {
                return try direct.write(bytes, at: offset)
            } catch where error.errno == EINVAL || error.errno == EOPNOTSUPP {
                // The filesystem takes no direct writes after all: this file's
                // bytes go through the page cache from here on.
                directWorks = false
            }
        }
        try data.write(bytes, at: offset)
    }
}
