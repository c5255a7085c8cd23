/* specs.h — parsing a job spec the daemon's way: files only under the models directory
 * and --allow-dir directories, relative paths against the models directory, model names
 * resolved among the submitter's uploads, and the device count checked separately so it
 * can be reported as too_many_devices. */
#ifndef FDWD_SPECS_H
#define FDWD_SPECS_H

#include "auth.h"
#include "fdwave.h"

#include <jansson.h>

/* Parse and validate body for who. Returns the engine's status; *out on FDW_OK. */
fdw_status specs_parse(const identity *who, const char *body, size_t len, fdw_spec **out,
                       fdw_error *err);

/* From the engine's normalised spec text (fdw_spec_to_json): *name (malloc'd; "" when
 * absent) and *devices (the "devices" object, or NULL when absent). Parses only those
 * two values, not the whole spec. Returns 0, or -1 (out of memory, or not JSON). */
int specs_norm_fields(const char *norm, char **name, json_t **devices);

#endif
