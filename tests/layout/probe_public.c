/* probe_public.c — compiles with the server's include path: the engine's public face. */
#include "fdwave/comm.h"
#include "fdwave/fdwave.h"

int layout_probe_public(void) { return FDW_OK; }
