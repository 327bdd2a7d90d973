import XCTest
import PeerKit

/// Issue 45: where a peer's files go by default, as the XDG user-dirs
/// spec finds the user's download folder.
final class UserDownloadsTests: XCTestCase {
    func testTheUsersDownloadFolder() {
        let rows: [([String: String], String?, String?)] = [
            (["HOME": "/home/ann"], nil, "/home/ann/Downloads"),
            (["HOME": "/home/ann", "XDG_DOWNLOAD_DIR": "/data/in"], nil, "/data/in"),
            (["HOME": "/home/ann"], "# comment\nXDG_DOWNLOAD_DIR=\"$HOME/Téléchargements\"\n", "/home/ann/Téléchargements"),
            (["HOME": "/home/ann"], "XDG_DOWNLOAD_DIR=\"relative\"\n", "/home/ann/Downloads"),
            ([:], nil, nil),
        ]
        for (environment, userDirs, expected) in rows {
            XCTAssertEqual(UserDownloads.folder(environment: environment, userDirs: userDirs), expected, "\(environment) \(String(describing: userDirs))")
        }
        XCTAssertEqual(UserDownloads.target(for: "host2/photos", downloads: "/d"), "/d/photos")
        XCTAssertEqual(UserDownloads.target(for: "host2", downloads: "/d"), "/d/host2")
        for odd in ["..", ".", "", "/", "a/..", ".hidden", "x\ny"] {
            XCTAssertEqual(UserDownloads.target(for: odd, downloads: "/d"), "/d/peerd", "a peer's name \(odd.debugDescription) names no folder above")
        }
    }
}
