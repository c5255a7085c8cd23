/* atomic_file.c — temporary-file-then-rename writing for every output file. */
#include "output/atomic_file.h"
#include "core/error.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The process umask, read without changing it: umask() can only be read by setting it,
 * which races with other threads creating files (the snapshot writer, daemon workers).
 * Linux reports it in /proc/self/status; elsewhere assume the common 022. Read once. */
static mode_t process_umask(void)
{
    static _Atomic int cached = -1;
    int m = atomic_load(&cached);
    if (m >= 0)
        return (mode_t)m;
    m = 022;
    FILE *f = fopen("/proc/self/status", "r");
    if (f) {
        char line[256];
        unsigned v;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "Umask: %o", &v) == 1) {
                m = (int)(v & 0777);
                break;
            }
        fclose(f);
    }
    atomic_store(&cached, m);
    return (mode_t)m;
}

fdw_status fdw_atomic_open(fdw_atomic_file *af, const char *path, fdw_error *err)
{
    af->fp = NULL;
    af->tmp[0] = '\0';
    if (!path || !path[0])
        return fdw_fail(err, FDW_ERR_IO, NULL, "empty output file name");
    if (strlen(path) >= sizeof af->path)
        return fdw_fail(err, FDW_ERR_IO, NULL, "output path too long: %.200s...", path);
    snprintf(af->path, sizeof af->path, "%s", path);
    snprintf(af->tmp, sizeof af->tmp, "%s.tmpXXXXXX", path);
    int fd = mkstemp(af->tmp);
    if (fd < 0) {
        int e = errno;
        af->tmp[0] = '\0';
        return fdw_fail(err, FDW_ERR_IO, NULL, "cannot create %s: %s", path, strerror(e));
    }
    /* mkstemp makes the file 0600; outputs are meant to be read by others too. */
    (void)fchmod(fd, 0666 & ~process_umask());
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        int e = errno;
        close(fd);
        unlink(af->tmp);
        af->tmp[0] = '\0';
        return fdw_fail(err, FDW_ERR_IO, NULL, "cannot open %s: %s", path, strerror(e));
    }
    return FDW_OK;
}

fdw_status fdw_atomic_commit(fdw_atomic_file *af, fdw_error *err)
{
    if (!af->tmp[0])
        return fdw_fail(err, FDW_ERR_INTERNAL, NULL, "atomic commit without a temporary file");
    int bad = 0, e = 0;
    if (af->fp) {
        bad = ferror(af->fp);
        e = errno;
        if (fflush(af->fp) != 0) {
            bad = 1;
            e = errno;
        }
        if (fclose(af->fp) != 0 && !bad) {
            bad = 1;
            e = errno;
        }
        af->fp = NULL;
    }
    if (bad) {
        unlink(af->tmp);
        af->tmp[0] = '\0';
        return fdw_fail(err, FDW_ERR_IO, NULL, "cannot write %s: %s", af->path,
                        strerror(e ? e : EIO));
    }
    if (rename(af->tmp, af->path) != 0) {
        e = errno;
        unlink(af->tmp);
        af->tmp[0] = '\0';
        return fdw_fail(err, FDW_ERR_IO, NULL, "cannot rename into %s: %s", af->path,
                        strerror(e));
    }
    af->tmp[0] = '\0';
    return FDW_OK;
}

void fdw_atomic_abort(fdw_atomic_file *af)
{
    if (af->fp) {
        fclose(af->fp);
        af->fp = NULL;
    }
    if (af->tmp[0]) {
        unlink(af->tmp);
        af->tmp[0] = '\0';
    }
}
