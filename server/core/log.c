/* log.c — leveled, timestamped log lines on stderr (see log.h). Each line is formatted
 * into one buffer and written with a single fputs under a lock, so lines from different
 * threads never interleave. */
#include "core/log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Process-wide, as stderr is: the level lines must reach to be written (set once at
 * start-up) and the lock that keeps lines from different threads whole. */
static int stderr_level = LOG_INFO;
static pthread_mutex_t stderr_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *const level_names[] = {"debug", "info", "warn", "error"};

int log_level_parse(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(name, level_names[i]) == 0)
            return i;
    return -1;
}

void log_set_level(int level) { stderr_level = level; }

void log_msg(int level, const char *fmt, ...)
{
    if (level < stderr_level)
        return;
    char line[2048];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    const char *name = level_names[level < 0 ? 0 : level > 3 ? 3 : level];
    int n = snprintf(line, sizeof line, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %-5s ",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                     tm.tm_sec, ts.tv_nsec / 1000000, name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    line[len] = '\n';
    line[len + 1] = '\0';
    pthread_mutex_lock(&stderr_lock);
    fputs(line, stderr);
    fflush(stderr);
    pthread_mutex_unlock(&stderr_lock);
}
