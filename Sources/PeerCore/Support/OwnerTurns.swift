/// Jobs of many owners taken one at a time, round robin by owner (issue
/// 45: limits per owner): each owner's jobs keep their order, and an owner
/// with a thousand jobs waiting delays another's next job by one job, not
/// by a thousand. Pure; the shell runs what ``next()`` gives.
package struct OwnerTurns<Owner: Hashable & Sendable, Job: Sendable>: Sendable {
    private var queues: [Owner: [Job]] = [:]
    /// Owners with jobs, in the order their turns come.
    private var order: [Owner] = []

    /// Nothing waits.
    package init() {}

    /// Jobs waiting, all owners together.
    package private(set) var count = 0

    /// Adds `job` at the end of `owner`'s queue; an owner new to the
    /// rotation takes its turn after the owners already in it.
    package mutating func add(_ job: Job, for owner: Owner) {
        if queues[owner, default: []].isEmpty, !order.contains(owner) { order.append(owner) }
        queues[owner, default: []].append(job)
        count += 1
    }

    /// The next job: the first of the owner whose turn it is, who then
    /// goes to the back of the rotation (or leaves it, with nothing left).
    package mutating func next() -> (owner: Owner, job: Job)? {
        guard !order.isEmpty else { return nil }
        let owner = order.removeFirst()
        guard var queue = queues[owner], !queue.isEmpty else { return next() }
        let job = queue.removeFirst()
        count -= 1
        if queue.isEmpty { queues[owner] = nil } else {
            queues[owner] = queue
            order.append(owner)
        }
        return (owner, job)
    }
}
