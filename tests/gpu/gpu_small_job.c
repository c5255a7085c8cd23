/* gpu_small_job.c — a small job of each kind on the CUDA backend, end to end through
 * fdw_run (sponge, free surface, two sources, receivers, xy/xz/yz snapshots; stencil; the
 * derivative), with the acoustic job also on 2 slabs. Small enough to run under
 * compute-sanitizer memcheck and racecheck (tests/gpu/run.sh); under ctest a plain run.
 * Exits 77 without a GPU, 1 on any failure. */
#include "fdwave/fdwave.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int run_json(const char *name, const char *json, const int *ids, int nids)
{
    fdw_spec *spec = NULL;
    fdw_error err;
    if (fdw_spec_parse(json, strlen(json), NULL, &spec, &err) != FDW_OK) {
        fprintf(stderr, "%s: spec rejected: %s: %s\n", name, err.field, err.message);
        return 1;
    }
    char dir[] = "/tmp/fdw-gpu-small-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        fdw_spec_free(spec);
        return 1;
    }
    fdw_run_opts opts = {.out_dir = dir, .backend = FDW_BACKEND_CUDA, .device_ids = ids,
                         .ndevice_ids = nids};
    fdw_result res;
    fdw_status st = fdw_run(spec, &opts, NULL, &res, &err);
    if (st != FDW_OK)
        fprintf(stderr, "%s: run failed: %s\n", name, err.message);
    else
        printf("%s: %ld steps on %s, %.1f Mpts/s\n", name, res.steps_done, res.backend, res.mpts);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    fdw_spec_free(spec);
    return st == FDW_OK && strcmp(res.backend, "cuda") == 0 ? 0 : 1;
}

int main(void)
{
    if (fdw_gpu_count() == 0) {
        printf("no CUDA device: skipping\n");
        return 77;
    }
    int fails = 0;
    for (int c = 0; c < 3; c++) { /* CPML on 1 and 2 slabs, sponge on 1 */
        const int slabs = c == 1 ? 2 : 1;
        char json[2048];
        snprintf(json, sizeof json,
                 "{\"kind\":\"acoustic\",\"grid\":{\"nx\":45,\"ny\":38,\"nz\":33,\"dx\":10,"
                 "\"dy\":10,\"dz\":10},\"order\":8,\"velocity\":{\"type\":\"layered\",\"layers\":"
                 "[{\"top\":0,\"v\":1800},{\"top\":150,\"v\":2600}]},"
                 "\"time\":{\"nt\":24,\"dt\":\"auto\"},"
                 "\"sources\":[{\"position\":[222,181,95],\"wavelet\":{\"type\":\"ricker\",\"f0\":20}},"
                 "{\"position\":[100,100,250],\"wavelet\":{\"type\":\"ricker\",\"f0\":25}}],"
                 "\"receivers\":{\"lines\":[{\"from\":[10,10,5],\"to\":[430,360,310],\"count\":9}]},"
                 "\"boundary\":{\"type\":\"%s\",\"width\":6,\"free_surface\":true},"
                 "\"snapshots\":{\"every\":8,\"slices\":[{\"plane\":\"xy\",\"index\":16},"
                 "{\"plane\":\"xz\",\"index\":19},{\"plane\":\"yz\",\"index\":20}],\"png\":false}}",
                 c < 2 ? "cpml" : "sponge");
        /* two slabs share GPU 0 on a one-GPU machine (allowed by the backend) */
        const int ids[2] = {0, fdw_gpu_count() > 1 ? 1 : 0};
        static const char *what[3] = {"acoustic, CPML, 1 slab", "acoustic, CPML, 2 slabs",
                                      "acoustic, sponge, 1 slab"};
        fails += run_json(what[c], json, ids, slabs);
    }
    fails += run_json("stencil",
                      "{\"kind\":\"stencil\",\"grid\":{\"nx\":41,\"ny\":37,\"nz\":29,\"dx\":1,"
                      "\"dy\":1,\"dz\":1},\"order\":12,\"iterations\":5,\"seed\":3}", NULL, 0);
    fails += run_json("derivative",
                      "{\"kind\":\"derivative\",\"grid\":{\"nx\":41,\"ny\":37,\"nz\":29,\"dx\":1,"
                      "\"dy\":1,\"dz\":1},\"iterations\":2,\"axis\":\"z\",\"periods\":[2,3,4]}", NULL, 0);
    fails += run_json("derivative along y (the shared-memory tile kernel)",
                      "{\"kind\":\"derivative\",\"grid\":{\"nx\":41,\"ny\":37,\"nz\":29,\"dx\":1,"
                      "\"dy\":1,\"dz\":1},\"iterations\":2,\"axis\":\"y\",\"periods\":[2,3,4]}", NULL, 0);
    return fails ? 1 : 0;
}
