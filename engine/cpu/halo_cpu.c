/* halo_cpu.c — what the CPU backend keeps outside each slab's owned points: the ghost
 * planes shared with neighbouring slabs (the "exchange" of the multi-device plan, here a
 * plane copy between virtual devices), the free-surface mirror above the top plane, and
 * the periodic padding the derivative kind reads. In a distributed run the exchange with
 * other processes goes through the run's communicator (comm.h). */
#include "cpu/cpu_backend_impl.h"

#include <string.h>

/* The slab owning global plane g (0 <= g < nz). */
static int owner_of_plane(const cpu_ctx *c, int g)
{
    for (int d = 0; d < c->ndev; d++)
        if (g >= c->slab[d].z0 && g < c->slab[d].z0 + c->slab[d].nz)
            return d;
    return -1;
}

/* Whole padded plane at local plane k (may be a ghost plane, -r <= k < nz + r). */
static float *plane_ptr(const cpu_ctx *c, const cpu_slab *s, int b, int k)
{
    return s->buf[b] + ((ptrdiff_t)k + c->r) * c->plane;
}

void cpu_exchange_ghosts(const cpu_ctx *c, int b, int periodic)
{
    if (c->ndev == 1 && !periodic)
        return; /* every ghost plane lies outside the grid */
    const int r = c->r, n = 2 * r * c->ndev;
    const size_t bytes = (size_t)c->plane * sizeof(float);
    /* One task per ghost plane: slab d, ghost g (first r above the slab, then r below). */
#pragma omp parallel for schedule(static)
    for (int t = 0; t < n; t++) {
        const cpu_slab *s = &c->slab[t / (2 * r)];
        int g = t % (2 * r);
        int k = g < r ? -1 - g : s->nz + (g - r);   /* local ghost plane */
        int gz = s->z0 + k;                          /* its global plane */
        if (periodic)
            gz = ((gz % c->nz) + c->nz) % c->nz;
        else if (gz < 0 || gz >= c->nz)
            continue;                                /* outside the grid: stays zero */
        int d = owner_of_plane(c, gz);
        const cpu_slab *src = &c->slab[d];
        memcpy(plane_ptr(c, s, b, k), plane_ptr(c, src, b, gz - src->z0), bytes);
    }
}

int cpu_exchange_remote_start(const cpu_ctx *c, int b, int periodic, void **pending)
{
    const cpu_slab *s = &c->slab[0];
    const int g = c->gslab, n = c->nslabs, r = c->r;
    const int prev = g > 0 ? g - 1 : periodic ? n - 1 : -1;
    const int next = g < n - 1 ? g + 1 : periodic ? 0 : -1;
    /* r whole padded planes each way: the owned planes next to a neighbour go to its
     * ghost planes, contiguous in both buffers. */
    return c->comm->exchange_start(c->comm, prev, next, plane_ptr(c, s, b, 0),
                                   plane_ptr(c, s, b, -r), plane_ptr(c, s, b, s->nz - r),
                                   plane_ptr(c, s, b, s->nz), (size_t)r * (size_t)c->plane,
                                   pending);
}

int cpu_exchange_remote_finish(const cpu_ctx *c, void *pending)
{
    return c->comm->exchange_finish(c->comm, pending);
}

void cpu_mirror_free_surface(const cpu_ctx *c, int b)
{
    const cpu_slab *s = &c->slab[0];
    const ptrdiff_t n = c->plane;
    const int r = c->r;
    /* Planes 1..r are owned by slab 0 or sit in its lower ghost planes (a slab holds at
     * least r planes), refreshed by the last exchange. */
#pragma omp parallel for collapse(2) schedule(static)
    for (int m = 1; m <= r; m++)
        for (ptrdiff_t i = 0; i < n; i++)
            plane_ptr(c, s, b, -m)[i] = -plane_ptr(c, s, b, m)[i];
}

void cpu_fill_periodic_pad(const cpu_ctx *c, int b, fdw_axis axis)
{
    const int r = c->r, nx = c->nx, ny = c->ny;
    for (int d = 0; d < c->ndev; d++) {
        const cpu_slab *s = &c->slab[d];
        float *base = cpu_base(c, s, b);
#pragma omp parallel for schedule(static)
        for (int k = 0; k < s->nz; k++) {
            float *pl = base + (ptrdiff_t)k * c->plane;
            if (axis == FDW_AXIS_X) {
                for (int j = 0; j < ny; j++) {
                    float *row = pl + (ptrdiff_t)j * c->px;
                    for (int m = 1; m <= r; m++) {
                        row[-m] = row[((-m % nx) + nx) % nx];
                        row[nx - 1 + m] = row[(nx - 1 + m) % nx];
                    }
                }
            } else if (axis == FDW_AXIS_Y) {
                const size_t row_bytes = (size_t)nx * sizeof(float);
                for (int m = 1; m <= r; m++) {
                    int above = ((-m % ny) + ny) % ny, below = (ny - 1 + m) % ny;
                    memcpy(pl - (ptrdiff_t)m * c->px, pl + (ptrdiff_t)above * c->px, row_bytes);
                    memcpy(pl + (ptrdiff_t)(ny - 1 + m) * c->px, pl + (ptrdiff_t)below * c->px,
                           row_bytes);
                }
            }
        }
    }
}
