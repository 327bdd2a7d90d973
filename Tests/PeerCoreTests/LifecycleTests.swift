import XCTest
@testable import PeerCore

/// State-machine tables for the Avahi client lifecycle and the publisher.
final class AvahiClientLifecycleTests: XCTestCase {
    func testStartRunAndRestartTable() {
        var machine = AvahiClientLifecycle()
        XCTAssertEqual(machine.start(), [.createClient])
        let g1 = machine.generation
        XCTAssertEqual(machine.clientStateChanged(.connecting, generation: g1), [])
        XCTAssertEqual(machine.status, .waitingForDaemon)
        XCTAssertEqual(machine.clientStateChanged(.registering, generation: g1), [.resetPublication])
        XCTAssertEqual(machine.clientStateChanged(.running, generation: g1), [.startBrowsing, .publish])
        XCTAssertEqual(machine.status, .running)
        // Host-name collision and back: browsers stay, the service is re-published.
        XCTAssertEqual(machine.clientStateChanged(.collision, generation: g1), [.resetPublication])
        XCTAssertEqual(machine.clientStateChanged(.running, generation: g1), [.publish])
        // avahi-daemon restart: AVAHI_CLIENT_FAILURE / AVAHI_ERR_DISCONNECTED.
        XCTAssertEqual(machine.clientStateChanged(.failure(disconnected: true, message: "Daemon connection failed"), generation: g1),
                       [.forgetDiscoveries, .recreateClient])
        XCTAssertEqual(machine.status, .reconnecting)
        let g2 = machine.generation
        XCTAssertGreaterThan(g2, g1)
        XCTAssertEqual(machine.clientStateChanged(.running, generation: g1), [], "a freed client's callbacks are ignored")
        XCTAssertEqual(machine.clientStateChanged(.running, generation: g2), [.startBrowsing, .publish], "the new client browses again")
    }

    func testCreationFailureRetries() {
        var machine = AvahiClientLifecycle()
        _ = machine.start()
        XCTAssertEqual(machine.creationFailed(message: "no bus"), [.scheduleRetry(seconds: 1)])
        XCTAssertEqual(machine.lastMessage, "no bus")
        XCTAssertEqual(machine.retryDue(), [.createClient])
    }

    func testStopIsFinal() {
        var machine = AvahiClientLifecycle()
        _ = machine.start()
        XCTAssertEqual(machine.stop(), [.shutdown])
        XCTAssertEqual(machine.stop(), [])
        XCTAssertEqual(machine.clientStateChanged(.running, generation: machine.generation), [])
        XCTAssertEqual(machine.retryDue(), [])
        XCTAssertEqual(machine.status, .stopped)
    }
}

final class ServicePublisherTests: XCTestCase {
    func testRegisterEstablishCollideRename() {
        var publisher = ServicePublisher(name: "box")
        XCTAssertEqual(publisher.clientRunning(), [.register(name: "box")])
        XCTAssertEqual(publisher.clientRunning(), [], "already registering")
        XCTAssertEqual(publisher.established(), [.log("service 'box' established")])
        XCTAssertEqual(publisher.state, .established)
        XCTAssertEqual(publisher.collision(), [.chooseAlternative(after: "box")])
        XCTAssertEqual(publisher.alternativeChosen("box #2"), [.log("service name 'box' collides; renamed to 'box #2'"), .register(name: "box #2")])
        XCTAssertEqual(publisher.name, "box #2")
        XCTAssertEqual(publisher.requestedName, "box")
        XCTAssertEqual(publisher.state, .registering)
    }

    func testClientResetAndLossRegisterTheCurrentNameAgain() {
        var publisher = ServicePublisher(name: "box")
        _ = publisher.clientRunning()
        _ = publisher.collision()
        _ = publisher.alternativeChosen("box #2")
        XCTAssertEqual(publisher.clientReset(), [.reset])
        XCTAssertEqual(publisher.clientReset(), [], "nothing left to withdraw")
        XCTAssertEqual(publisher.clientRunning(), [.register(name: "box #2")])
        publisher.clientLost()
        XCTAssertEqual(publisher.state, .idle)
        XCTAssertEqual(publisher.clientRunning(), [.register(name: "box #2")])
    }

    func testFailureIsReportedAndRetriedOnRunning() {
        var publisher = ServicePublisher(name: "box")
        _ = publisher.clientRunning()
        XCTAssertEqual(publisher.failed("Not permitted"), [.log("publishing 'box' failed: Not permitted")])
        XCTAssertEqual(publisher.state, .failed)
        XCTAssertEqual(publisher.failure, "Not permitted")
        XCTAssertEqual(publisher.collision(), [], "a failed group does not collide")
        XCTAssertEqual(publisher.clientRunning(), [.register(name: "box")])
    }
}
