/// A row of ``ControlCalls/all``: a method and the name of its result type.
public struct ControlCallEntry: Sendable, Equatable {
    /// The method.
    public var method: ControlMethod
    /// Its result type's name, such as `DaemonStatus`.
    public var result: String
}
