package import PeerProtocol
extension ControlError {
    /// What a request gets when the peer's release cannot do it: the peer,
    /// its release and the feature missing, and what to do ("'bravo' runs
    /// peerd 0.1.0, which cannot receive files (no feature 'files');
    /// upgrade it"). Nothing was sent, and the session stays up.
    package static func unsupported(_ feature: WireFeature, peer: String, release: String) -> ControlError {
        ControlError(.unsupported, "'\(peer)' runs peerd \(release), which cannot \(feature.ability) (no feature '\(feature.rawValue)'); upgrade it",
                     feature: feature.rawValue, release: release)
    }
}
