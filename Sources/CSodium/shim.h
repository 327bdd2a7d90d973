#ifndef PEERD_CSODIUM_SHIM_H
#define PEERD_CSODIUM_SHIM_H
#include <sodium.h>
#endif
