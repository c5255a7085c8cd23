/* metrics.h — request counters and the Prometheus text served at /metrics. */
#ifndef FDWD_METRICS_H
#define FDWD_METRICS_H

#include "core/app.h"

#include <stddef.h>

/* Set up app->metrics (before the HTTP daemon starts). Returns 0, or -1 (out of memory). */
int metrics_init(fdwd_app *app);
void metrics_count_request(fdwd_app *app);
void metrics_count_status(fdwd_app *app, unsigned status);
/* The exposition text (caller frees), or NULL. */
char *metrics_text(fdwd_app *app);

#endif
