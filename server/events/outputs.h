/* outputs.h — the outputs table: the files a job wrote into data/jobs/<id>/out, as its
 * snapshot events and, at its end, its manifest announce them. */
#ifndef FDWD_OUTPUTS_H
#define FDWD_OUTPUTS_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdint.h>

/* Record each entry of files (a list of {"name", "format", "bytes"?}, as in a snapshot
 * event or manifest.json) for job_id inside the caller's open transaction; entries
 * without a name are skipped, a missing format is "unknown", missing bytes NULL.
 * Returns 0, or -1 when a row could not be written (logged; the others still are). */
int outputs_record_tx(sqlite3 *c, int64_t job_id, const json_t *files);

#endif
