#ifndef PEERD_CLDNS_SHIM_H
#define PEERD_CLDNS_SHIM_H
/* libldns (libldns-dev): wide-area DNS-SD (issue 46). peerd asks a site's
 * DNS server for PTR, SRV, TXT and address records, and publishes its own
 * with signed DNS UPDATEs (RFC 2136, TSIG RFC 8945). ldns builds and parses
 * every packet; peerd writes no DNS wire format of its own. */
#include <ldns/ldns.h>
#endif
