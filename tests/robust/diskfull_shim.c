/* diskfull_shim.c — a full disk on demand, for test_faults (loaded with LD_PRELOAD into
 * fdwaved, and so into its runners): while the file FDW_DISKFULL_TRIGGER exists, writes
 * to files under the directory FDW_DISKFULL_DIR fail with ENOSPC (write, pwrite,
 * pwrite64, fflush and fclose: SQLite's database and WAL, the engine's checkpoints and
 * outputs), and statvfs of a path under it reports no free space (the daemon's disk
 * guard). Other files (logs, pipes, sockets) are untouched. No root, no tmpfs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <unistd.h>

/* Whether the disk is "full" now for what fd (or path, when fd < 0) names. */
static int full_for(int fd, const char *path)
{
    const char *trigger = getenv("FDW_DISKFULL_TRIGGER"), *dir = getenv("FDW_DISKFULL_DIR");
    if (!trigger || !dir || !dir[0] || access(trigger, F_OK) != 0)
        return 0;
    char target[4096];
    if (fd >= 0) {
        char link[64];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            return 0;
        target[n] = '\0';
        path = target;
    }
    return path && strncmp(path, dir, strlen(dir)) == 0;
}

#define REAL(name, type) ((type)dlsym(RTLD_NEXT, name))

ssize_t write(int fd, const void *buf, size_t n)
{
    if (full_for(fd, NULL)) {
        errno = ENOSPC;
        return -1;
    }
    return REAL("write", ssize_t (*)(int, const void *, size_t))(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    if (full_for(fd, NULL)) {
        errno = ENOSPC;
        return -1;
    }
    return REAL("pwrite", ssize_t (*)(int, const void *, size_t, off_t))(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    if (full_for(fd, NULL)) {
        errno = ENOSPC;
        return -1;
    }
    return REAL("pwrite64", ssize_t (*)(int, const void *, size_t, off_t))(fd, buf, n, off);
}

int fflush(FILE *f)
{
    if (f && full_for(fileno(f), NULL)) {
        errno = ENOSPC;
        return EOF;
    }
    return REAL("fflush", int (*)(FILE *))(f);
}

int fclose(FILE *f)
{
    const int full = f && full_for(fileno(f), NULL);
    const int rc = REAL("fclose", int (*)(FILE *))(f);
    if (full) {
        errno = ENOSPC;
        return EOF;
    }
    return rc;
}

int statvfs(const char *path, struct statvfs *out)
{
    const int rc = REAL("statvfs", int (*)(const char *, struct statvfs *))(path, out);
    if (rc == 0 && full_for(-1, path))
        out->f_bavail = out->f_bfree = 0;
    return rc;
}
