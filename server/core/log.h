/* log.h — the daemon's log: one line per message on stderr, with a UTC timestamp and a
 * level; messages below the configured level are dropped. Thread-safe. */
#ifndef FDWD_LOG_H
#define FDWD_LOG_H

enum { LOG_DEBUG = 0, LOG_INFO = 1, LOG_WARN = 2, LOG_ERROR = 3 };

/* Parse "debug" | "info" | "warn" | "error"; returns the level or -1. */
int log_level_parse(const char *name);
void log_set_level(int level);
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)

#endif
