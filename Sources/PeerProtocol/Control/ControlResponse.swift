/// A response line: `{"v":1,"id":1,"result":{…}}` or `{"v":1,"id":1,"error":{…}}`.
public struct ControlResponse<Result: Codable & Sendable>: Codable, Sendable {
    /// Protocol version.
    public var v: Int
    /// The request id; nil when the request was too broken to have one.
    public var id: RequestID?
    /// The result on success.
    public var result: Result?
    /// The error on failure.
    public var error: ControlError?

    /// A success.
    public init(id: RequestID?, result: Result) {
        v = ControlProtocol.version
        self.id = id
        self.result = result
        error = nil
    }

    /// A failure.
    public init(id: RequestID?, error: ControlError) {
        v = ControlProtocol.version
        self.id = id
        result = nil
        self.error = error
    }

    private enum CodingKeys: String, CodingKey { case v, id, result, error }

    /// Encodes `id` always, as `null` when the request had none
    /// (docs/control-protocol.md), and `result` or `error`, whichever is set.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(v, forKey: .v)
        if let id { try container.encode(id, forKey: .id) } else { try container.encodeNil(forKey: .id) }
        try container.encodeIfPresent(result, forKey: .result)
        try container.encodeIfPresent(error, forKey: .error)
    }
}
