/// One request line: `{"v":1,"id":1,"method":"peers","params":{}}`.
public struct ControlRequest: Codable, Sendable, Equatable {
    /// Protocol version; must be ``ControlProtocol/version``.
    public var v: Int
    /// Echoed in the response.
    public var id: RequestID
    /// What is asked. Kept as text so an unknown method gets a typed error.
    public var method: String
    /// Method parameters.
    public var params: ControlParams?

    /// Creates a request.
    public init(id: RequestID, method: ControlMethod, params: ControlParams? = nil) {
        v = ControlProtocol.version
        self.id = id
        self.method = method.rawValue
        self.params = params
    }
}
