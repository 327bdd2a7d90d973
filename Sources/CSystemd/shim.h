// sd-bus (libsystemd-dev): the desktop agent's D-Bus, never hand-written.
// Its functions that build and read messages are variadic, which Swift
// cannot call; the agent uses the non-variadic ones (append_basic,
// open_container, read_basic) and these few helpers.
#include <stdint.h>
#include <systemd/sd-bus.h>

static const char PEERD_BUS_STRING = SD_BUS_TYPE_STRING;
static const char PEERD_BUS_UINT32 = SD_BUS_TYPE_UINT32;
static const char PEERD_BUS_INT32 = SD_BUS_TYPE_INT32;
static const char PEERD_BUS_BOOLEAN = SD_BUS_TYPE_BOOLEAN;
static const char PEERD_BUS_ARRAY = SD_BUS_TYPE_ARRAY;
static const char PEERD_BUS_VARIANT = SD_BUS_TYPE_VARIANT;
static const char PEERD_BUS_DICT_ENTRY = SD_BUS_TYPE_DICT_ENTRY;

/// Appends a string.
static inline int peerd_bus_append_string(sd_bus_message *m, const char *s) {
    return sd_bus_message_append_basic(m, SD_BUS_TYPE_STRING, s);
}

/// Appends a uint32.
static inline int peerd_bus_append_u32(sd_bus_message *m, uint32_t v) {
    return sd_bus_message_append_basic(m, SD_BUS_TYPE_UINT32, &v);
}

/// Appends an int32.
static inline int peerd_bus_append_i32(sd_bus_message *m, int32_t v) {
    return sd_bus_message_append_basic(m, SD_BUS_TYPE_INT32, &v);
}

/// Appends a boolean.
static inline int peerd_bus_append_bool(sd_bus_message *m, int v) {
    return sd_bus_message_append_basic(m, SD_BUS_TYPE_BOOLEAN, &v);
}

/// Reads a string (valid while the message lives), or NULL.
static inline const char *peerd_bus_read_string(sd_bus_message *m) {
    const char *s = NULL;
    return sd_bus_message_read_basic(m, SD_BUS_TYPE_STRING, &s) > 0 ? s : NULL;
}

/// Reads a uint32 into *v; > 0 when one was there.
static inline int peerd_bus_read_u32(sd_bus_message *m, uint32_t *v) {
    return sd_bus_message_read_basic(m, SD_BUS_TYPE_UINT32, v);
}

/// An empty error, as SD_BUS_ERROR_NULL.
static inline sd_bus_error peerd_bus_error_null(void) {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    return e;
}

/// Appends a byte.
static inline int peerd_bus_append_byte(sd_bus_message *m, uint8_t v) {
    return sd_bus_message_append_basic(m, SD_BUS_TYPE_BYTE, &v);
}
