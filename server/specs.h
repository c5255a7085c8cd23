/* specs.h — parsing a job spec the daemon's way: files only under the models directory
 * and --allow-dir directories, relative paths against the models directory, model names
 * resolved among the submitter's uploads, and the device count checked separately so it
 * can be reported as too_many_devices. */
#ifndef FDWD_SPECS_H
#define FDWD_SPECS_H

#include "auth.h"
#include "fdwave/fdwave.h"

/* Parse and validate body for who. Returns the engine's status; *out on FDW_OK. */
fdw_status specs_parse(const identity *who, const char *body, size_t len, fdw_spec **out,
                       fdw_error *err);

#endif
