/* factcache.c — facts of shared model files, kept per file version (see factcache.h). */
#include "data/factcache.h"
#include "core/log.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CACHE_SIZE 256

typedef struct entry {
    char path[4096];
    char format[8];
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    fdw_model_info info;
    int used;
} entry;

/* The kept facts (app->facts). */
struct factcache {
    pthread_mutex_t lock;
    entry cache[CACHE_SIZE];
    int next;                  /* the slot the next new entry takes (oldest first) */
};

int factcache_init(fdwd_app *app)
{
    struct factcache *fc = calloc(1, sizeof *fc);
    if (!fc)
        return -1;
    pthread_mutex_init(&fc->lock, NULL);
    app->facts = fc;
    return 0;
}

static int same_version(const entry *e, const char *path, const char *format,
                        const struct stat *st)
{
    return e->used && !strcmp(e->path, path) && !strcmp(e->format, format) &&
           e->dev == st->st_dev && e->ino == st->st_ino && e->size == st->st_size &&
           e->mtime.tv_sec == st->st_mtim.tv_sec && e->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

int factcache_get(struct factcache *fc, const char *real_path, const char *format,
                  fdw_model_info *info)
{
    if (!format || (strcmp(format, "raw-f32") != 0 && strcmp(format, "segy") != 0) ||
        strlen(real_path) >= sizeof fc->cache[0].path)
        return -1;
    struct stat st;
    if (stat(real_path, &st) != 0)
        return -1;
    pthread_mutex_lock(&fc->lock);
    for (int i = 0; i < CACHE_SIZE; i++)
        if (same_version(&fc->cache[i], real_path, format, &st)) {
            *info = fc->cache[i].info;
            pthread_mutex_unlock(&fc->lock);
            return 0;
        }
    pthread_mutex_unlock(&fc->lock);
    /* The one read, outside the lock (it may take a while for a large file). */
    fdw_model_info found = {0};
    fdw_error fe = {0};
    if (fdw_model_inspect(real_path, format, "velocity.path", &found, &fe) != FDW_OK ||
        found.nvalues == 0)
        return -1;
    snprintf(found.format, sizeof found.format, "%s", format);
    struct stat after;
    if (stat(real_path, &after) != 0 || after.st_mtim.tv_sec != st.st_mtim.tv_sec ||
        after.st_mtim.tv_nsec != st.st_mtim.tv_nsec || after.st_size != st.st_size)
        return -1; /* changed while it was read: let the engine read it itself */
    pthread_mutex_lock(&fc->lock);
    entry *e = &fc->cache[fc->next];
    fc->next = (fc->next + 1) % CACHE_SIZE;
    snprintf(e->path, sizeof e->path, "%s", real_path);
    snprintf(e->format, sizeof e->format, "%s", format);
    e->dev = st.st_dev;
    e->ino = st.st_ino;
    e->size = st.st_size;
    e->mtime = st.st_mtim;
    e->info = found;
    e->used = 1;
    pthread_mutex_unlock(&fc->lock);
    log_debug("recorded the facts of shared model %s (%llu values, %g..%g m/s)", real_path,
              (unsigned long long)found.nvalues, found.vmin, found.vmax);
    *info = found;
    return 0;
}
