package import PeerProtocol

/// The rules of a `quickSave` request (issue 45), apart from the trust
/// store, tested as a table: the folder a user names, and who may change a
/// rule. peerd never opens the folder (the service cannot see home
/// folders); it keeps the path for that user's agent, so it checks only
/// that the path is one a user could mean.
package enum QuickSaveRequest {
    /// The longest folder path kept (Linux's `PATH_MAX`).
    package static let maxFolderBytes = 4096

    /// The rule `folder` asks for, for `uid`: nil (the rule off) when
    /// `folder` is absent, else a rule if the path is absolute, at most
    /// ``maxFolderBytes`` and free of control characters.
    package static func rule(folder: String?, uid: UInt32) -> Result<QuickSaveRule?, ControlError> {
        guard let folder else { return .success(nil) }
        guard folder.hasPrefix("/") else {
            return .failure(ControlError(.invalidParams, "Quick Save folder '\(folder)': give an absolute path"))
        }
        guard folder.utf8.count <= maxFolderBytes else {
            return .failure(ControlError(.invalidParams, "Quick Save folder: longer than \(maxFolderBytes) bytes"))
        }
        guard !folder.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7f || (0x80..<0xa0).contains($0.value) }) else {
            return .failure(ControlError(.invalidParams, "Quick Save folder: control characters are not allowed"))
        }
        return .success(QuickSaveRule(uid: uid, folder: folder))
    }

    /// Why `caller` (a uid; nil when the kernel did not say) may not
    /// replace or clear `existing`, or nil when it may: root and the rule's
    /// own user may; another user may not take a rule over.
    package static func refusal(existing: QuickSaveRule?, caller: UInt32?, peerName: String) -> ControlError? {
        guard let existing, caller != 0, caller != existing.uid else { return nil }
        return ControlError(.permissionDenied, "'\(peerName)' has a Quick Save rule of uid \(existing.uid); only that user or root changes it")
    }
}
