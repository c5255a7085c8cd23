/* survey_plan.c — how a survey's shots share the job's devices: in parallel, one shot per
 * group of devices, when one shot fits on fewer devices than the job has (chosen from the
 * engine's own memory estimate, fdw_spec_device_bytes_max of a shot on g devices, against
 * each device's capacity; CPU virtual devices against the host's budget for every group's
 * shot at once), else one after another on all of them. Whatever is chosen, every shot's
 * result is the same bit for bit: an N-slab run equals a 1-slab run. Beyond one process, a
 * survey runs as parts of consecutive shots (fdw_survey_part_shots, the rule the daemon's
 * Slurm back end asks too), each part's groups chosen as above on its own devices. */
#include "run/survey.h"
#include "run/cpml.h"
#include "run/plan.h"

#include <string.h>
#include <unistd.h>

int fdw_survey_shot_view(const fdw_spec *spec, int g, fdw_spec *view)
{
    *view = *spec;
    view->survey = NULL;
    if (spec->survey)
        view->nreceivers = spec->survey->max_receivers;
    if (g < 1 || g > FDW_MAX_DEVICES)
        return -1;
    view->ndevices = g;
    fdw_error e;
    if (fdw_plan_slabs(spec->nz, spec->radius, g, NULL, &view->plan, &e) != FDW_OK ||
        fdw_cpml_check_plan(view, &view->plan, 0, &e) != FDW_OK)
        return -1;
    return 0;
}

uint64_t fdw_survey_host_budget(void)
{
    const long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || size <= 0)
        return 0;
    return (uint64_t)pages * (uint64_t)size / 2u;
}

/* Whether k groups sharing ndev devices in order fit: every group's slabs within each of
 * its devices' capacity, or (capacity NULL) k shots' host memory within the budget. */
static int groups_fit(const fdw_spec *spec, int ndev, int k, const uint64_t *capacity,
                      uint64_t host_budget)
{
    const int base = ndev / k, extra = ndev % k;
    uint64_t host = 0;
    for (int g = 0, at = 0; g < k; g++) {
        const int n = base + (g < extra);
        fdw_spec view;
        if (fdw_survey_shot_view(spec, n, &view) != 0)
            return 0;
        const uint64_t need = fdw_spec_device_bytes_max(&view);
        for (int d = at; capacity && d < at + n; d++)
            if (need > capacity[d])
                return 0;
        host += fdw_spec_host_bytes(&view, FDW_BACKEND_CPU);
        at += n;
    }
    return capacity || k == 1 || host <= host_budget;
}

void fdw_survey_layout_make(const fdw_spec *spec, int ndev, const uint64_t *capacity,
                            uint64_t host_budget, int forced, fdw_survey_layout *out)
{
    memset(out, 0, sizeof *out);
    const int nshots = spec->survey ? spec->survey->nshots : 1;
    int most = ndev < nshots ? ndev : nshots;
    if (most < 1)
        most = 1;
    int k = 1;
    if (forced > 0) {
        k = forced < most ? forced : most;
        while (k > 1 && !groups_fit(spec, ndev, k, NULL, UINT64_MAX))
            k--; /* a slab plan that cannot be (CPML layers): fewer, larger groups */
    } else {
        /* the most groups that fit: the smallest group a shot fits on */
        for (k = most; k > 1; k--)
            if (groups_fit(spec, ndev, k, capacity, host_budget))
                break;
    }
    out->ngroups = k;
    for (int g = 0, at = 0; g < k; g++) {
        out->first[g] = at;
        out->count[g] = ndev / k + (g < ndev % k);
        at += out->count[g];
    }
}

int fdw_survey_nparts(int nshots, int most)
{
    const int n = most < nshots ? most : nshots;
    return n < 1 ? 1 : n;
}

void fdw_survey_part_shots(int nshots, int nparts, int part, int *first, int *count)
{
    nparts = fdw_survey_nparts(nshots, nparts);
    if (part < 0 || part >= nparts || nshots < 1) {
        *first = *count = 0;
        return;
    }
    const int base = nshots / nparts, extra = nshots % nparts;
    *first = part * base + (part < extra ? part : extra);
    *count = base + (part < extra);
}
