/* diskguard.c — the reserve file and the free-space figures (see diskguard.h). */
#include "core/diskguard.h"
#include "core/app.h"
#include "core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>


static void reserve_path(const fdwd_app *app, char *out, size_t len)
{
    snprintf(out, len, "%s/reserve", app->data_dir);
}

/* Write the reserve's bytes for real (not a sparse file): the space is taken now. */
static int make_reserve(const fdwd_app *app)
{
    const uint64_t want = app->cfg.disk_reserve;
    char path[CFG_PATH + 16], tmp[CFG_PATH + 24];
    reserve_path(app, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (want == 0)
        return 0;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    int rc = posix_fallocate(fd, 0, (off_t)want);
    if (rc == EOPNOTSUPP || rc == EINVAL) { /* no fallocate here: write zeros */
        static const char zeros[65536];
        rc = 0;
        for (uint64_t done = 0; done < want && rc == 0;) {
            size_t n = want - done < sizeof zeros ? (size_t)(want - done) : sizeof zeros;
            ssize_t w = write(fd, zeros, n);
            rc = w > 0 ? 0 : errno ? errno : EIO;
            done += w > 0 ? (uint64_t)w : 0;
        }
    }
    if (rc == 0 && fsync(fd) != 0)
        rc = errno;
    close(fd);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = errno;
    if (rc != 0) {
        unlink(tmp);
        errno = rc;
        return -1;
    }
    return 0;
}

int diskguard_init(fdwd_app *app)
{
    pthread_mutex_lock(&app->disk_lock);
    int rc = make_reserve(app);
    pthread_mutex_unlock(&app->disk_lock);
    if (rc)
        log_warn("disk: cannot set aside %llu bytes in %s/reserve: %s (a full disk may then "
                 "keep a job's end from being recorded until space is freed)",
                 (unsigned long long)app->cfg.disk_reserve, app->data_dir, strerror(errno));
    return rc;
}

int diskguard_release(fdwd_app *app)
{
    char path[CFG_PATH + 16];
    reserve_path(app, path, sizeof path);
    pthread_mutex_lock(&app->disk_lock);
    int had = unlink(path) == 0;
    pthread_mutex_unlock(&app->disk_lock);
    if (had)
        log_warn("disk: the data directory's disk is full: its reserve of %llu bytes was "
                 "given up so that jobs' ends can be recorded; free space (fdwave rm, the "
                 "retention setting) and it is set aside again",
                 (unsigned long long)app->cfg.disk_reserve);
    return had;
}

int diskguard_status(const fdwd_app *app, disk_status *out)
{
    struct statvfs sv;
    char path[CFG_PATH + 16];
    struct stat sb;
    memset(out, 0, sizeof *out);
    if (statvfs(app->data_dir, &sv) != 0)
        return -1;
    out->free_bytes = (uint64_t)sv.f_bavail * sv.f_frsize;
    out->total_bytes = (uint64_t)sv.f_blocks * sv.f_frsize;
    reserve_path(app, path, sizeof path);
    if (stat(path, &sb) == 0)
        out->reserve_bytes = (uint64_t)sb.st_size;
    out->low = out->free_bytes < app->cfg.min_free_disk;
    return 0;
}

void diskguard_maintain(fdwd_app *app)
{
    disk_status ds;
    if (app->cfg.disk_reserve == 0 || diskguard_status(app, &ds) != 0 || ds.reserve_bytes > 0)
        return;
    if (ds.free_bytes < 2 * app->cfg.disk_reserve || ds.low)
        return; /* not yet: taking it now would fill the disk again */
    pthread_mutex_lock(&app->disk_lock);
    int rc = make_reserve(app);
    pthread_mutex_unlock(&app->disk_lock);
    if (rc == 0)
        log_info("disk: space is back; the reserve of %llu bytes is set aside again",
                 (unsigned long long)app->cfg.disk_reserve);
}

int diskguard_is_full_message(const char *msg)
{
    return msg && (strstr(msg, strerror(ENOSPC)) || strstr(msg, strerror(EDQUOT)) ||
                   strstr(msg, "disk full") || strstr(msg, "database or disk is full"));
}
