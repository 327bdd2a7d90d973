package import PeerProtocol

/// What a `downloads` or `fetch` request names, checked before anything is
/// opened (issue 45): a folder in the caller's download directory and,
/// for `fetch`, files in it. Each is a relative path by the rules of a
/// transferred name (``TransferPath``), so it can reach nothing above the
/// caller's directory, no `.peerd-` file, and, for the default app, not
/// the apps' folder.
package enum DownloadRequest {
    /// The most files one `fetch` copies (one descriptor each, and
    /// `SCM_RIGHTS` carries at most 64 in one message).
    package static let maxFiles = 64

    /// The folder's components (none for the directory itself);
    /// `isDefaultApp`: the caller acts for the default app.
    package static func folder(_ text: String?, isDefaultApp: Bool) -> Result<[String], ControlError> {
        guard let text, !text.isEmpty else { return .success([]) }
        switch TransferPath.check(text) {
        case .failure(let refusal):
            return .failure(ControlError(.invalidParams, "folder '\(text)': \(refusal.description)"))
        case .success(let path):
            if isDefaultApp, path.components.first == DownloadListing.appsFolder {
                return .failure(ControlError(.invalidParams, "folder '\(text)': the apps' folder is theirs; act for the app (--app)"))
            }
            return .success(path.components)
        }
    }

    /// The files' paths (relative to the folder), in order: at least one,
    /// at most ``maxFiles``, no two the same.
    package static func paths(_ texts: [String]?, atBase: Bool, isDefaultApp: Bool) -> Result<[TransferPath], ControlError> {
        guard let texts, !texts.isEmpty else { return .failure(ControlError(.invalidParams, "'fetch' needs params.paths")) }
        guard texts.count <= maxFiles else {
            return .failure(ControlError(.invalidParams, "'fetch' takes at most \(maxFiles) files a request; \(texts.count) given"))
        }
        var seen = Set<String>()
        var paths: [TransferPath] = []
        for text in texts {
            guard seen.insert(text).inserted else { return .failure(ControlError(.invalidParams, "'\(text)' is listed twice")) }
            switch TransferPath.check(text) {
            case .failure(let refusal):
                return .failure(ControlError(.invalidParams, "'\(text)': \(refusal.description)"))
            case .success(let path):
                if isDefaultApp, atBase, path.components.first == DownloadListing.appsFolder {
                    return .failure(ControlError(.invalidParams, "'\(text)': the apps' folder is theirs; act for the app (--app)"))
                }
                paths.append(path)
            }
        }
        return .success(paths)
    }
}
