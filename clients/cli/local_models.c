/* local_models.c — a spec's model file on this machine: found, named for the server,
 * hinted at, or uploaded and swapped for the upload's name (see local_models.h). */
#include "local_models.h"

#include <errno.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "commands.h"
#include "exit_codes.h"
#include "report.h"
#include "rsf_join.h"

/* The extensions the server takes for a format (its upload names say the format); the
 * first is the one a name gets when it has none of them. */
static const char *const *extensions(const char *format)
{
    static const char *const raw[] = {".f32", ".bin", ".raw", NULL};
    static const char *const segy[] = {".segy", ".sgy", NULL};
    static const char *const rsf[] = {".rsf", NULL};
    if (format && !strcmp(format, "segy"))
        return segy;
    if (format && !strcmp(format, "rsf"))
        return rsf;
    return raw;
}

/* The server's name for a local file: its base name in the characters model names may
 * hold (others become '_', no leading '.'), with an extension of its format. */
static void server_name(const char *path, const char *format, char *out, size_t cap)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    while (*base == '.')
        base++;
    size_t n = 0;
    for (; *base && n + 8 < cap && n < 120; base++) {
        char ch = *base;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                 (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' || ch == '-';
        out[n++] = ok ? ch : '_';
    }
    out[n] = '\0';
    const char *const *ext = extensions(format);
    const char *dot = strrchr(out, '.');
    for (int i = 0; dot && ext[i]; i++)
        if (!strcasecmp(dot, ext[i]))
            return;
    snprintf(out + n, cap - n, "%s", ext[0]);
}

int fdc_local_model_find(const char *spec, size_t len, const char *spec_path,
                         fdc_local_model *m)
{
    json_t *root = json_loadb(spec, len, 0, NULL);
    json_t *vel = json_object_get(root, "velocity");
    const char *type = json_string_value(json_object_get(vel, "type"));
    const char *path = json_string_value(json_object_get(vel, "path"));
    const char *format = json_string_value(json_object_get(vel, "format"));
    int found = 0;
    if (type && !strcmp(type, "file") && path && *path) {
        const char *slash = strcmp(spec_path, "-") ? strrchr(spec_path, '/') : NULL;
        if (path[0] == '/' || !slash)
            snprintf(m->path, sizeof m->path, "%s", path);
        else
            snprintf(m->path, sizeof m->path, "%.*s/%s", (int)(slash - spec_path), spec_path,
                     path);
        struct stat st;
        found = stat(m->path, &st) == 0 && S_ISREG(st.st_mode);
        if (found)
            server_name(m->path, format, m->name, sizeof m->name);
    }
    json_decref(root);
    return found;
}

void fdc_local_model_hint(const fdc_local_model *m)
{
    fprintf(stderr,
            "hint: velocity.path names %s, a file on this machine, which the server cannot "
            "read: upload it first (`fdwave models upload %s %s`, then name it in the spec as "
            "\"velocity\": {\"type\": \"model\", \"name\": \"%s\"}), or submit with "
            "--upload-models to do both\n",
            m->path, m->path, m->name, m->name);
}

/* SHA-256 of what an upload of path as model name sends (rsf_join.h) as hex; 0, or -1
 * with why. */
static int upload_sha256(const char *path, const char *name, char hex[65], char *why,
                         size_t cap)
{
    long long size;
    FILE *f = fdc_model_open(path, name, &size, why, cap);
    if (!f)
        return -1;
    struct sha256_ctx ctx;
    sha256_init(&ctx);
    unsigned char buf[1 << 16];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sha256_update(&ctx, n, buf);
    int bad = ferror(f);
    fclose(f);
    if (bad)
        snprintf(why, cap, "cannot read %s: %s", path, strerror(errno));
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_digest(&ctx, sizeof d, d);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    return bad ? -1 : 0;
}

/* The SHA-256 the server lists for model name ("" when it lists none). */
static int server_sha256(const fdc_client *c, const char *name, char sha[65])
{
    fdc_response r;
    sha[0] = '\0';
    int rc = fdc_call(c, "GET", "/v1/models", NULL, NULL, 0, NULL, &r);
    if (rc)
        return rc;
    size_t i;
    json_t *mod;
    json_array_foreach(json_object_get(r.json, "models"), i, mod)
    {
        const char *n = json_string_value(json_object_get(mod, "name"));
        const char *s = json_string_value(json_object_get(mod, "sha256"));
        if (n && s && !strcmp(n, name))
            snprintf(sha, 65, "%s", s);
    }
    fdc_response_free(&r);
    return FDC_EXIT_OK;
}

int fdc_local_model_upload(const fdc_client *c, const fdc_local_model *m, const char *spec,
                           size_t len, char **out, size_t *outlen)
{
    char mine[65], theirs[65], why[600];
    if (upload_sha256(m->path, m->name, mine, why, sizeof why))
        return fdc_fail_local("%s", why);
    int rc = server_sha256(c, m->name, theirs);
    if (rc)
        return rc;
    if (!strcmp(mine, theirs)) {
        if (!c->json)
            fprintf(stderr, "model %s is on the server already (sha256 %s)\n", m->name, mine);
    } else {
        rc = fdc_upload_model(c, m->path, m->name, 0, 1);
        if (rc == FDC_EXIT_BAD_REQUEST && theirs[0] && !c->json)
            fprintf(stderr,
                    "hint: the server's model %s has other content (sha256 %s, this file's %s); "
                    "replace it with `fdwave models upload --replace %s %s`, or rename the "
                    "file\n",
                    m->name, theirs, mine, m->path, m->name);
        if (rc)
            return rc;
    }
    json_t *root = json_loadb(spec, len, 0, NULL);
    if (!root || json_object_set_new(root, "velocity",
                                     json_pack("{s:s, s:s}", "type", "model", "name", m->name)))
        return fdc_fail_local("cannot rewrite the spec's velocity");
    *out = json_dumps(root, JSON_PRESERVE_ORDER | JSON_COMPACT);
    json_decref(root);
    if (!*out)
        return fdc_fail_local("out of memory");
    *outlen = strlen(*out);
    return FDC_EXIT_OK;
}
