/* spec_files.c — resolving the file paths a spec names (velocity models, wavelets):
 * relative to the spec's base directory, canonicalised with realpath, and confined to the
 * allowed directories when the caller (the daemon) gives them, so a job cannot read
 * arbitrary files through "../" or symbolic links. */
#include "spec/spec_parse.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether the canonical path p lies under the canonical directory dir. */
static int under_dir(const char *p, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/')
        return 1;
    return strncmp(p, dir, n) == 0 && (p[n] == '/' || p[n] == '\0');
}

int sp_resolve_path(spec_ctx *c, const char *field, const char *path, int check_allowed,
                    char *out)
{
    if (!path[0])
        return sp_fail(c, field, "%s is empty: give the file's path", field);
    char joined[FDW_PATH_MAX + 8];
    const char *base = c->base_dir && c->base_dir[0] ? c->base_dir : ".";
    int n = path[0] == '/' ? snprintf(joined, sizeof joined, "%s", path)
                           : snprintf(joined, sizeof joined, "%s/%s", base, path);
    if (n < 0 || (size_t)n >= FDW_PATH_MAX)
        return sp_fail(c, field, "%s is too long", field);
    char real[PATH_MAX];
    /* Messages name the path as the user wrote it, not the server's base directory. */
    if (!realpath(joined, real))
        return sp_fail(c, field, "cannot open %s: %s", path, strerror(errno));
    if (check_allowed && c->opts && c->opts->allowed_dirs) {
        int ok = 0;
        for (const char *const *d = c->opts->allowed_dirs; *d && !ok; d++) {
            char rdir[PATH_MAX];
            if (realpath(*d, rdir))
                ok = under_dir(real, rdir);
        }
        if (!ok)
            return sp_fail(c, field, "%s (%s) is outside the allowed directories", field, path);
    }
    struct stat st;
    if (stat(real, &st) != 0)
        return sp_fail(c, field, "cannot open %s: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return sp_fail(c, field, "%s is not a regular file", path);
    if (access(real, R_OK) != 0)
        return sp_fail(c, field, "cannot read %s: %s", path, strerror(errno));
    if (strlen(real) >= FDW_PATH_MAX)
        return sp_fail(c, field, "%s resolves to a path that is too long", field);
    snprintf(out, FDW_PATH_MAX, "%s", real);
    return 0;
}
