/// Decodes the rtnetlink notifications peerd subscribes to (links and
/// addresses) into ``NetworkChange``s. Pure: the socket lives in PeerIO.
///
/// The layouts are the kernel's (<linux/netlink.h>, <linux/rtnetlink.h>,
/// <linux/if_addr.h>): fields in host byte order, each message aligned to
/// 4 bytes. Anything malformed ends the parse of that datagram; nothing
/// here traps on bad input.
package enum NetlinkRouteParser {
    /// `RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR`: the groups to bind.
    package static let subscribedGroups: UInt32 = 0x1 | 0x10 | 0x100

    private static let headerLength = 16
    private static let done: UInt16 = 3          // NLMSG_DONE
    private static let overrun: UInt16 = 4       // NLMSG_OVERRUN
    private static let newLink: UInt16 = 16      // RTM_NEWLINK
    private static let deleteLink: UInt16 = 17   // RTM_DELLINK
    private static let newAddress: UInt16 = 20   // RTM_NEWADDR
    private static let deleteAddress: UInt16 = 21 // RTM_DELADDR
    private static let interfaceUp: UInt32 = 0x1       // IFF_UP
    private static let interfaceRunning: UInt32 = 0x40 // IFF_RUNNING (operational: carrier)

    /// The changes in one datagram, in order.
    package static func parse(_ datagram: [UInt8]) -> [NetworkChange] {
        var changes: [NetworkChange] = []
        var offset = 0
        while datagram.count - offset >= headerLength {
            let length = Int(u32(datagram, offset))
            guard length >= headerLength, length <= datagram.count - offset else { break }
            let type = u16(datagram, offset + 4)
            let body = offset + headerLength
            let bodyLength = length - headerLength
            switch type {
            case newLink, deleteLink:
                // struct ifinfomsg: family, pad, type (u16), index (i32), flags (u32), change (u32).
                guard bodyLength >= 16 else { break }
                let index = Int32(bitPattern: u32(datagram, body + 4))
                if type == deleteLink {
                    changes.append(.linkRemoved(index: index))
                } else {
                    let flags = u32(datagram, body + 8)
                    let running = flags & interfaceUp != 0 && flags & interfaceRunning != 0
                    changes.append(.link(index: index, running: running))
                }
            case newAddress, deleteAddress:
                // struct ifaddrmsg: family, prefixlen, flags, scope (u8 each), index (u32).
                guard bodyLength >= 8 else { break }
                let index = Int32(bitPattern: u32(datagram, body + 4))
                changes.append(type == newAddress ? .addressAdded(index: index) : .addressRemoved(index: index))
            case overrun:
                changes.append(.overrun)
            case done:
                return changes
            default:
                break
            }
            offset += (length + 3) & ~3
        }
        return changes
    }

    private static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        let value = UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        return UInt32(littleEndian: value)
    }

    private static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 {
        UInt16(littleEndian: UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8)
    }
}
