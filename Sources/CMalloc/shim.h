// glibc's malloc tuning: mallopt and malloc_trim, which Glibc's Swift module
// does not export. peerd uses them to hand memory back after bulk work.
#include <malloc.h>
