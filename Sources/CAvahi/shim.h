#ifndef PEERD_CAVAHI_SHIM_H
#define PEERD_CAVAHI_SHIM_H
/* The parts of libavahi-client peerd uses: the client, browsing/resolving,
 * publishing through entry groups, the threaded poll (Avahi calls back on its
 * own thread), string lists for TXT records and service-name alternatives. */
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/address.h>
#endif
