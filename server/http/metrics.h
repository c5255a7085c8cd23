/* metrics.h — request counters and the Prometheus text served at /metrics. */
#ifndef FDWD_METRICS_H
#define FDWD_METRICS_H

#include <stddef.h>

void metrics_count_request(void);
void metrics_count_status(unsigned status);
/* The exposition text (caller frees), or NULL. */
char *metrics_text(void);

#endif
