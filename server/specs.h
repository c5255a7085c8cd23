/* specs.h — parsing a job spec the daemon's way: every file it names checked with the
 * submitter's rights (access.h: their own uploads, the --allow-dir directories, nothing
 * else), relative paths against the models directory, model names resolved among the
 * uploads the submitter may read (with the facts recorded at upload, so the model file
 * is not read), the configured caps on sources, receivers, snapshots, recordings and
 * grid points, and the devices checked by the engine against this server's
 * (FDW_ERR_DEVICE, answered as too_many_devices). A new job (not normalised) whose derived
 * device memory (fdw_spec_device_bytes) exceeds what the largest devices it could get
 * hold together is refused on "grid". */
#ifndef FDWD_SPECS_H
#define FDWD_SPECS_H

#include "auth.h"
#include "fdwave/fdwave.h"

/* Parse and validate body for who. normalised: body is the engine's normalised spec
 * stored at submission (the worker's re-parse), whose recorded facts stand for the
 * files it names. Returns the engine's status; *out on FDW_OK. */
fdw_status specs_parse(const identity *who, const char *body, size_t len, int normalised,
                       fdw_spec **out, fdw_error *err);

#endif
