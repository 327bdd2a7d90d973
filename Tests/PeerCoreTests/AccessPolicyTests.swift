import XCTest
@testable import PeerCore
import PeerProtocol

final class AccessPolicyTests: XCTestCase {
    private let root = ClientCredentials(pid: 1, uid: 0, gid: 0, groups: [])
    private let member = ClientCredentials(pid: 2, uid: 1000, gid: 1000, groups: [27, 990])
    private let primaryMember = ClientCredentials(pid: 3, uid: 1001, gid: 990, groups: [])
    private let stranger = ClientCredentials(pid: 4, uid: 1002, gid: 1002, groups: [100])

    func testRootAndMembersMayDoEverything() {
        let policy = AccessPolicy(groupID: 990, publicRead: false)
        for method in ControlMethod.allCases {
            XCTAssertTrue(policy.allows(method, for: root), "\(method)")
            XCTAssertTrue(policy.allows(method, for: member), "\(method)")
            XCTAssertTrue(policy.allows(method, for: primaryMember), "\(method)")
            XCTAssertFalse(policy.allows(method, for: stranger), "\(method)")
        }
    }

    func testPublicReadOpensOnlyStatusAndPeers() {
        let policy = AccessPolicy(groupID: 990, publicRead: true)
        let allowed = ControlMethod.allCases.filter { policy.allows($0, for: stranger) }
        XCTAssertEqual(Set(allowed), [.status, .peers])
    }

    func testWithoutTheGroupOnlyRoot() {
        let policy = AccessPolicy(groupID: nil, publicRead: false)
        XCTAssertTrue(policy.allows(.send, for: root))
        XCTAssertFalse(policy.allows(.status, for: member))
    }
}
