/* fuzz_spec.c — libFuzzer target for the job-spec parser (fdw_spec_parse) as the daemon
 * calls it: confined to a directory with a model, a wavelet, an RSF header and a file the
 * access callback refuses, model names resolved with recorded facts, small caps. Every
 * input must come back as a spec or an error naming a field, without a crash, a leak or
 * undefined behaviour (ASan/UBSan); and a spec it accepts must re-parse from its own
 * normalised JSON (what the daemon's worker does), or the target aborts. */
#include "fdwave/fdwave.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_dir[256];
static char g_private[320];
static const char *g_allowed[2];

static void write_floats(const char *name, int n, float v)
{
    char p[400];
    snprintf(p, sizeof p, "%s/%s", g_dir, name);
    FILE *f = fopen(p, "wb");
    if (!f)
        abort();
    for (int i = 0; i < n; i++)
        fwrite(&v, 4, 1, f);
    fclose(f);
}

/* The daemon's rule in miniature: everything in the directory but private.f32. */
static int may_read(void *user, const char *real, fdw_file_use use, const char *format,
                    fdw_model_info *info)
{
    (void)user;
    (void)use;
    (void)format;
    (void)info;
    return strcmp(real, g_private) == 0 ? -1 : 0;
}

/* One uploaded model, "m.f32" (8^3 raw floats at 1500..2500 m/s), with its facts. */
static int resolve(void *user, const char *name, char *path, size_t cap, fdw_model_info *info)
{
    (void)user;
    if (strcmp(name, "m.f32") != 0)
        return -1;
    snprintf(path, cap, "%s/m.f32", g_dir);
    memset(info, 0, sizeof *info);
    snprintf(info->format, sizeof info->format, "raw-f32");
    info->nvalues = 512;
    info->vmin = 1500;
    info->vmax = 2500;
    return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(g_dir, sizeof g_dir, "/tmp/fdw-fuzz-spec-XXXXXX");
    if (!mkdtemp(g_dir))
        abort();
    write_floats("m.f32", 512, 2000.0f);
    write_floats("model.f32", 512, 1800.0f);
    write_floats("wavelet.f32", 64, 0.5f);
    write_floats("private.f32", 512, 3000.0f);
    snprintf(g_private, sizeof g_private, "%s/private.f32", g_dir);
    write_floats("v.rsf@", 512, 2200.0f);
    char p[400];
    snprintf(p, sizeof p, "%s/v.rsf", g_dir);
    FILE *f = fopen(p, "w");
    if (!f)
        abort();
    fprintf(f, "n1=8 n2=8 n3=8 d1=10 d2=10 d3=10 data_format=native_float esize=4 in=\"v.rsf@\"\n");
    fclose(f);
    g_allowed[0] = g_dir;
    g_allowed[1] = NULL;
    return 0;
}

static fdw_parse_opts opts(int normalised)
{
    fdw_parse_opts o = {0};
    o.base_dir = g_dir;
    o.allowed_dirs = g_allowed;
    o.file_access = may_read;
    o.resolve_model = resolve;
    o.max_points = 1u << 15;
    o.max_sources = 64;
    o.max_receivers = 4096;
    o.max_snapshots = 256;
    o.max_record_bytes = 1u << 22;
    o.max_devices = 4;
    o.normalised = normalised;
    return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fdw_parse_opts o = opts(0);
    fdw_spec *spec = NULL;
    fdw_error err;
    fdw_status st = fdw_spec_parse((const char *)data, size, &o, &spec, &err);
    if (st != FDW_OK) {
        if (spec || err.code != st || !err.message[0])
            abort(); /* an error must be a value with a message */
        return 0;
    }
    (void)fdw_spec_device_bytes(spec);
    (void)fdw_spec_points(spec);
    for (int i = 0; i < fdw_spec_warning_count(spec); i++)
        if (!fdw_spec_warning(spec, i))
            abort();
    char *norm = fdw_spec_to_json(spec);
    fdw_spec_free(spec);
    if (!norm)
        abort();
    fdw_parse_opts o2 = opts(1);
    fdw_spec *again = NULL;
    st = fdw_spec_parse(norm, strlen(norm), &o2, &again, &err);
    if (st != FDW_OK) {
        fprintf(stderr, "the normalised spec does not re-parse: %s: %s\n%s\n", err.field,
                err.message, norm);
        abort();
    }
    fdw_spec_free(again);
    free(norm);
    return 0;
}
