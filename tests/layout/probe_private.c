/* probe_private.c — must NOT compile with the server's include path: a private engine
 * header (tests/layout/CMakeLists.txt expects the compiler to report it missing). */
#include "spec/spec.h"

int layout_probe_private(void) { return (int)sizeof(fdw_spec); }
