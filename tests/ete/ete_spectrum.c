/* ete_spectrum.c — the extreme eigenvalues of the ETE operator assembled on a spec's own
 * model (ete_stability.h) at the spec's dt, or at each dt given after it: the figures of
 * docs/ete.md's stability table. The spec is parsed without its own check (deferred).
 * Usage: ete_spectrum spec.json [dt ...]; ETE_SPECTRUM_ITER caps the Lanczos steps. */
#include "kinds/ete/ete_stability.h"
#include "model/model_io.h"
#include "spec/spec.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: ete_spectrum spec.json [dt ...]\n");
        return 2;
    }
    fdw_error err;
    fdw_spec *spec = NULL;
    const fdw_parse_opts po = {.defer_model_checks = 1};
    if (fdw_spec_load(argv[1], &po, &spec, &err) != FDW_OK) {
        fprintf(stderr, "%s: %s\n", err.field, err.message);
        return 2;
    }
    const size_t n = (size_t)spec->nx * spec->ny * spec->nz;
    float *v = malloc(n * sizeof *v);
    if (!v || fdw_model_load(spec, v, &err) != FDW_OK) {
        fprintf(stderr, "the model: %s\n", v ? err.message : "out of memory");
        return 1;
    }
    const char *iters = getenv("ETE_SPECTRUM_ITER");
    const double dt0 = spec->dt;
    for (int a = argc > 2 ? 2 : 1; a < argc; a++) {
        fdw_spec at = *spec;
        at.dt = argc > 2 ? atof(argv[a]) : dt0;
        fdw_ete_data d = {0};
        const ete_grid g = {at.nx, at.ny, at.nz, at.boundary.free_surface};
        ete_spectrum s;
        if (fdw_ete_build_table(&at, v, n, &d, &err) != FDW_OK ||
            fdw_ete_spectrum(&g, &d, iters ? atoi(iters) : 0, 1e-7, &s, &err) != FDW_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        printf("dt %.6g (%.4g x auto %.6g): %d bins, lambda [%.9f, %.9f] residuals %.2e %.2e, "
               "%d steps, %.2f s: %s (growth %.4g a step)\n", at.dt, at.dt / dt0, dt0, d.nv,
               s.lmin, s.lmax, s.rmin, s.rmax, s.iterations, s.seconds,
               fdw_ete_spectrum_stable(&s) ? "stable" : "unstable",
               fdw_ete_growth(s.lmin < ETE_LAMBDA_LO ? s.lmin : s.lmax));
        free(d.table), free((void *)d.idx), free(d.bin_v), free(d.bin_err), free(d.bin_max);
    }
    free(v);
    fdw_spec_free(spec);
    return 0;
}
