/* spec_memory.c — what a validated spec will hold in memory, for admission (the daemon
 * compares these with its largest device and with the host before a job is accepted, and
 * with what is free before it starts): the largest device's share of the kind's device
 * estimate, and the host memory of the run on a backend (its checkpoints' image included).
 * Estimates from the spec alone; nothing is allocated. */
#include "kinds/kind.h"
#include "run/survey.h"
#include "run/survey_stack.h"
#include "spec/spec.h"
#include "run/ckpt_image.h"
#include "run/positioning.h"

#include <stdint.h>

/* Receiver recordings: receiver rows x recorded slots x 4 bytes (wave kinds; 0
 * otherwise). */
static uint64_t recording_bytes(const fdw_spec *spec)
{
    if (!spec->kind->wave || spec->nreceivers <= 0 || spec->receiver_interval < 1)
        return 0;
    const uint64_t slots = (uint64_t)(spec->nt / spec->receiver_interval) + 1;
    return fdw_receiver_rows(spec) * slots * 4u;
}

/* Host buffers of the snapshot pipeline: two sets of every region, float32. */
static uint64_t snapshot_bytes(const fdw_spec *spec)
{
    if (spec->snapshot_every <= 0)
        return 0;
    const uint64_t nx = (uint64_t)spec->nx, ny = (uint64_t)spec->ny, nz = (uint64_t)spec->nz;
    uint64_t set = 0;
    for (int q = 0; q < spec->nslices; q++) {
        switch (spec->slices[q].plane) {
        case FDW_PLANE_XY: set += nx * ny; break;
        case FDW_PLANE_XZ: set += nx * nz; break;
        case FDW_PLANE_YZ: set += ny * nz; break;
        case FDW_PLANE_VOLUME: set += nx * ny * nz; break;
        }
    }
    return 2u * 4u * set;
}

/* A survey's estimates are those of one shot on the spec's devices (survey_plan.c). */
static const fdw_spec *shot_of(const fdw_spec *spec, fdw_spec *view)
{
    if (!spec->survey)
        return spec;
    *view = *spec;
    view->survey = NULL;
    view->nreceivers = spec->survey->max_receivers;
    return view;
}

uint64_t fdw_spec_device_bytes(const fdw_spec *spec)
{
    fdw_spec view;
    return spec && spec->kind ? spec->kind->section.device_bytes(shot_of(spec, &view)) : 0;
}

uint64_t fdw_spec_device_bytes_max(const fdw_spec *spec)
{
    if (!spec || !spec->kind)
        return 0;
    fdw_spec view;
    spec = shot_of(spec, &view);
    const uint64_t total = spec->kind->section.device_bytes(spec);
    const int ndev = spec->plan.ndev > 0 ? spec->plan.ndev : 1;
    if (ndev == 1 || spec->nz <= 0)
        return total;
    if (spec->kind->section.device_bytes_slab) { /* the kind counts a slab itself */
        uint64_t worst = 0;
        for (int d = 0; d < ndev; d++) {
            const uint64_t b = spec->kind->section.device_bytes_slab(spec, spec->plan.z0[d],
                                                                     spec->plan.nz[d]);
            worst = b > worst ? b : worst;
        }
        return worst;
    }
    int most = 0;
    for (int d = 0; d < ndev; d++)
        if (spec->plan.nz[d] > most)
            most = spec->plan.nz[d];
    /* The per-point part splits with the planes; each device may hold every recording. */
    const uint64_t rec = recording_bytes(spec);
    const uint64_t points = total > rec ? total - rec : 0;
    return (uint64_t)((double)points * most / spec->nz) + 1u + rec;
}

/* A survey: the shots its groups run at once (on the CPU, as survey_plan.c chooses; on a
 * GPU at most one per device, as many as there are shots), each on its group's devices,
 * and the model read once for them. */
static uint64_t survey_host_bytes(const fdw_spec *spec, fdw_backend_kind backend)
{
    const int ndev = spec->ndevices > 0 ? spec->ndevices : 1;
    fdw_survey_layout lay;
    if (backend == FDW_BACKEND_CUDA) {
        const int k = ndev < spec->survey->nshots ? ndev : spec->survey->nshots;
        lay.ngroups = k > 0 ? k : 1;
        for (int g = 0; g < lay.ngroups; g++)
            lay.count[g] = 1; /* the smallest group holds the most host memory per device */
    } else {
        fdw_survey_layout_make(spec, ndev, NULL, fdw_survey_host_budget(), 0, &lay);
    }
    uint64_t bytes = 4u * fdw_spec_points(spec);
    for (int g = 0; g < lay.ngroups; g++) {
        fdw_spec view;
        if (fdw_survey_shot_view(spec, lay.count[g], &view) != 0)
            fdw_survey_shot_view(spec, ndev, &view);
        bytes += fdw_spec_host_bytes(&view, backend);
    }
    if (spec->kind->stack) { /* its sums of the shots and a shot's volume as read */
        const char *names[FDW_STACK_MAX_VOLUMES];
        const int nvol = spec->kind->stack->volumes(spec, names, NULL, FDW_STACK_MAX_VOLUMES);
        bytes += 4u * fdw_spec_points(spec) * (uint64_t)(nvol + 1);
    }
    return bytes;
}

uint64_t fdw_spec_checkpoint_bytes(const fdw_spec *spec, fdw_backend_kind backend)
{
    const int cuda = backend == FDW_BACKEND_CUDA;
    if (!spec || !spec->kind ||
        (cuda ? spec->kind->run.cuda_engine != NULL : spec->kind->run.cpu_engine != NULL))
        return 0;
    const uint64_t ndev = (uint64_t)(spec->plan.ndev > 0 ? spec->plan.ndev : 1);
    const uint64_t r = (uint64_t)spec->radius;
    /* rows padded as the CUDA layout pads them (kernels/common/fdwk_runtime.h: 32 floats
     * before, the radius after, a multiple of 32), which is at least the CPU's */
    const uint64_t row = ((uint64_t)spec->nx + r + 32u + 31u) / 32u * 32u;
    const uint64_t plane = row * ((uint64_t)spec->ny + 2u * r);
    const uint64_t field = 4u * (plane * ((uint64_t)spec->nz + 2u * r * ndev) + 64u * ndev);
    const uint64_t state = spec->kind->section.state_bytes
                               ? spec->kind->section.state_bytes(spec) : 0;
    /* and each array's start aligned (at most 16 arrays a slab) */
    return 2u * field + state + recording_bytes(spec) * (cuda ? ndev : 1u) + 1024u * ndev;
}

uint64_t fdw_spec_host_bytes(const fdw_spec *spec, fdw_backend_kind backend)
{
    if (!spec || !spec->kind)
        return 0;
    if (spec->survey)
        return survey_host_bytes(spec, backend);
    const uint64_t pts = (uint64_t)spec->nx * (uint64_t)spec->ny * (uint64_t)spec->nz;
    /* The problem's whole-grid arrays while it is built and run: the model and what the
     * kind derives from it (wave kinds), the initial field and the copy of the final one
     * (field kinds). The CPU backend's slabs are host memory too, padded rows and ghost
     * planes included (an eighth more covers the padding of any grid above 64^3). */
    const uint64_t ckpt = fdw_spec_checkpoint_bytes(spec, backend);
    uint64_t bytes = 8u * pts + snapshot_bytes(spec) + 2u * recording_bytes(spec) + ckpt;
    if (ckpt > 0 && backend == FDW_BACKEND_CUDA) /* the capture's staging buffers */
        bytes += (uint64_t)FDW_CKPT_STAGES * FDW_CKPT_STAGE_BYTES;
    /* the interpolation's taps (run/positioning.h): the receivers' as counted, the
     * sources' at their most */
    if (spec->kind->wave)
        bytes += 16u * ((uint64_t)(spec->nrec_taps > 0 ? spec->nrec_taps : 0) +
                        (uint64_t)spec->nsources * FDW_MAX_TAPS);
    if (backend != FDW_BACKEND_CUDA) {
        const uint64_t dev = spec->kind->section.device_bytes(spec);
        bytes += dev + dev / 8u;
    }
    return bytes;
}
