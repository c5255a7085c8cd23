/* spec_files.c — the one place where a file a spec names (velocity model, wavelet, the
 * binary of an RSF header) becomes a path the engine will open: relative to the spec's
 * base directory, canonicalised with realpath, and, when the caller confines specs
 * (fdw_parse_opts.allowed_dirs, e.g. the daemon), placed lexically under an allowed
 * directory before the file system is consulted, then checked again as a canonical path
 * and handed to the caller's access rule (fdw_parse_opts.file_access). A confined spec
 * gets one message for a path outside its reach, a missing file and a refused one, so the
 * answer never tells whether such a path exists. */
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
    while (n > 1 && dir[n - 1] == '/')
        n--;
    if (n == 1 && dir[0] == '/')
        return 1;
    return strncmp(p, dir, n) == 0 && (p[n] == '/' || p[n] == '\0');
}

/* Fold "//", "/./" and "/../" of the absolute path p in place, without asking the file
 * system ("/.." stays "/"). */
static void fold_lexically(char *p)
{
    char *out = p;  /* p[0] is '/' */
    const char *in = p;
    while (*in) {
        while (*in == '/')
            in++;
        if (!*in)
            break;
        const char *seg = in;
        while (*in && *in != '/')
            in++;
        size_t n = (size_t)(in - seg);
        if (n == 1 && seg[0] == '.')
            continue;
        if (n == 2 && seg[0] == '.' && seg[1] == '.') {
            while (out > p && *--out != '/')
                ;
            continue;
        }
        *out++ = '/';
        memmove(out, seg, n);
        out += n;
    }
    if (out == p)
        *out++ = '/';
    *out = '\0';
}

/* Whether p lies under one of the allowed directories (each canonicalised first). */
static int under_allowed(const fdw_parse_opts *o, const char *p)
{
    if (!o->allowed_dirs)
        return 1; /* confined by file_access alone */
    for (const char *const *d = o->allowed_dirs; *d; d++) {
        char rdir[PATH_MAX];
        if (realpath(*d, rdir) && under_dir(p, rdir))
            return 1;
    }
    return 0;
}

/* The confined spec's one refusal. */
static int out_of_reach(spec_ctx *c, const char *field, const char *path)
{
    const char *rule = c->opts->access_rule;
    return sp_fail(c, field,
                   "%s: \"%.512s\" is not a file this job may read (%s)", field, path,
                   rule && *rule ? rule
                                 : "a job may read only existing files under the allowed "
                                   "directories");
}

int sp_resolve_path(spec_ctx *c, const char *field, const char *path, fdw_file_use use,
                    const char *format, int check_allowed, fdw_model_info *info, char *out)
{
    if (info)
        memset(info, 0, sizeof *info);
    if (!path[0])
        return sp_fail(c, field, "%s is empty: give the file's path", field);
    char joined[FDW_PATH_MAX + 8];
    const char *base = c->base_dir && c->base_dir[0] ? c->base_dir : ".";
    int n = path[0] == '/' ? snprintf(joined, sizeof joined, "%s", path)
                           : snprintf(joined, sizeof joined, "%s/%s", base, path);
    if (n < 0 || (size_t)n >= FDW_PATH_MAX)
        return sp_fail(c, field, "%s is too long", field);
    const int confined =
        check_allowed && c->opts && (c->opts->allowed_dirs || c->opts->file_access);
    char real[PATH_MAX];
    if (confined) {
        /* Lexically first: a path that leaves the allowed directories is refused before
         * realpath could tell (by its error) whether it exists. */
        char lex[FDW_PATH_MAX + 8];
        if (joined[0] == '/') {
            snprintf(lex, sizeof lex, "%s", joined);
        } else {
            char cwd[PATH_MAX];
            if (!getcwd(cwd, sizeof cwd) ||
                snprintf(lex, sizeof lex, "%s/%s", cwd, joined) >= (int)sizeof lex)
                return out_of_reach(c, field, path);
        }
        fold_lexically(lex);
        struct stat st;
        if (!under_allowed(c->opts, lex) || !realpath(joined, real) ||
            !under_allowed(c->opts, real) || stat(real, &st) != 0 || !S_ISREG(st.st_mode) ||
            access(real, R_OK) != 0 || strlen(real) >= FDW_PATH_MAX)
            return out_of_reach(c, field, path);
        fdw_model_info local;
        if (c->opts->file_access &&
            c->opts->file_access(c->opts->resolve_user, real, use, format,
                                 info ? info : &local) != 0)
            return out_of_reach(c, field, path);
        snprintf(out, FDW_PATH_MAX, "%s", real);
        return 0;
    }
    /* Messages name the path as the user wrote it, not the server's base directory. */
    if (!realpath(joined, real))
        return sp_fail(c, field, "cannot open %s: %s", path, strerror(errno));
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
