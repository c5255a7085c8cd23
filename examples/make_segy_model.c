/* make_segy_model.c — generates examples/segy-model.segy, the velocity model of
 * examples/segy-model.json: 48 x 40 x 40 points at 10 m; a water layer, a gradient layer
 * over a dipping interface, a fast basement, and a slow lens (a smooth bump, no
 * transcendental functions so every machine writes the same bytes). Usage:
 *   make_segy_model OUT.segy
 * The test files_example_model regenerates the model and compares it with the
 * committed file. */
#include "model/model_io.h"

#include <stdio.h>
#include <stdlib.h>

enum { NX = 48, NY = 40, NZ = 40 };
static const double H = 10.0; /* metres, all axes */

/* Velocity in m/s at (x, y, z) metres. */
static double velocity(double x, double y, double z)
{
    double v;
    double dip_top = 200.0 + 0.25 * x; /* interface dipping 1 in 4 along x */
    if (z < 60.0)
        v = 1500.0;                      /* water */
    else if (z < dip_top)
        v = 2000.0 + 2.0 * (z - 60.0);   /* compacting sediments */
    else if (z < 330.0)
        v = 2800.0;
    else
        v = 3400.0;                      /* basement */
    /* Slow lens (gas): -500 m/s at the centre, fading as (1 - r^2/R^2)^2 to 0 at R. */
    double cx = 240.0, cy = 200.0, cz = 250.0, R = 80.0;
    double r2 = (x - cx) * (x - cx) + (y - cy) * (y - cy) + (z - cz) * (z - cz);
    if (r2 < R * R) {
        double s = 1.0 - r2 / (R * R);
        v -= 500.0 * s * s;
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUT.segy\n", argv[0]);
        return 2;
    }
    float *v = malloc((size_t)NX * NY * NZ * sizeof *v);
    if (!v) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 1;
    }
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++)
                v[i + NX * (j + NY * k)] = (float)velocity(i * H, j * H, k * H);
    fdw_error err;
    fdw_status st = fdw_model_write_segy(argv[1], v, NX, NY, NZ, H, H, H, &err);
    free(v);
    if (st != FDW_OK) {
        fprintf(stderr, "%s: %s\n", argv[0], err.message);
        return 1;
    }
    return 0;
}
