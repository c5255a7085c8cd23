/* test_sweep_walk.cpp — the CUDA sub-sweep's logic without a GPU (issue 20): the block walk
 * of kernels/sweep/sweep_walk.h (which cells a block computes at each plane, whom it waits
 * for, the first plane that can change, the cell update and its stores into the
 * neighbours' copies, the reach W) is driven on the host: the blocks of every part play
 * their planes in random orders that their waits allow (a part may run up to W planes ahead
 * of its neighbour, the copies' stores arriving early or late), with the CUDA engine's
 * partitioning (sweep_parts with the reach) and the shuffles' rule; T and the per-sweep
 * figures must equal the CPU engine's bit for bit, for a constant metric and an F field,
 * float64 and float32, 1 to 5 parts, reach 1 to 8, skipping on and off, and no block may
 * be left waiting for ever. (The GPU's memory ordering is the kernel's own; this checks the
 * schedule and the arithmetic.) */
extern "C" {
#include "kinds/sweep/sweep.h"
#include "kinds/sweep/sweep_parts.h"
#include "run/backend.h"
#include "run/plan.h"
#include "run/problem.h"
#include "spec/spec.h"
}
#include "sweep/sweep_walk.h"

#include <check.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

static std::mt19937 rng(12345);

/* The CUDA engine's parts in host memory and its operations: uploads as the engine's, the
 * shuffles by the CPU engine's rule, the sub-sweeps by sweep_walk.h with the blocks played
 * in a random order their waits allow. */
template <typename R> struct Mock {
    fdw_problem prob;
    const fdw_sweep_data *d;
    sweep_parts parts;
    struct Part { std::vector<R> t[2], s[2]; std::vector<int32_t> stamp[2]; std::vector<unsigned long long> flags; int act[2]; };
    std::vector<Part> P;
    bool no_skip;
    std::vector<sweep_stats> log;

    void upload() {
        P.resize(parts.nparts);
        for (int e = 0; e < parts.nparts; e++)
            for (int l = 0; l < 2; l++) {
                const sweep_box *b = l ? &parts.b[e] : &parts.a[e];
                P[e].t[l].assign(b->count, (R)INFINITY);
                P[e].s[l].assign(b->count, (R)0);
                P[e].stamp[l].assign(b->nbricks, -1);
                int lo[3], hi[3];
                sweep_box_held(&parts, b, lo, hi);
                for (int z = lo[2]; z < hi[2]; z++) for (int y = lo[1]; y < hi[1]; y++) for (int x = lo[0]; x < hi[0]; x++) {
                    size_t g = (size_t)x + (size_t)prob.nx * ((size_t)y + (size_t)prob.ny * z);
                    int64_t q = sweep_box_index(b, x, y, z);
                    P[e].t[l][q] = (R)d->t0[g];
                    if (d->speed) P[e].s[l][q] = (R)(1.0 / (double)d->speed[g]);
                    if (d->t0[g] < INFINITY) P[e].stamp[l][sweep_box_brick(b, x, y, z)] = 0;
                }
                P[e].flags.assign(100000, 0);
            }
    }
    void shuffle(int to, int epoch, int after) {
        int from = 1 - to;
        for (int e = 0; e < parts.nparts; e++) {
            const sweep_box *db = to ? &parts.b[e] : &parts.a[e];
            int hlo[3], hhi[3];
            sweep_box_held(&parts, db, hlo, hhi);
            for (int dd = 0; dd < parts.nparts; dd++) {
                const sweep_box *sb = from ? &parts.b[dd] : &parts.a[dd];
                int lo[3], hi[3], empty = 0;
                for (int a = 0; a < 3; a++) { lo[a] = std::max(hlo[a], sb->lo[a]); hi[a] = std::min(hhi[a], sb->hi[a]); empty |= lo[a] >= hi[a]; }
                if (empty) continue;
                for (int z = lo[2]; z < hi[2]; z++) for (int y = lo[1]; y < hi[1]; y++) for (int x = lo[0]; x < hi[0]; x++) {
                    if (P[dd].stamp[from][sweep_box_brick(sb, x, y, z)] <= after) continue;
                    R v = P[dd].t[from][sweep_box_index(sb, x, y, z)];
                    R &o = P[e].t[to][sweep_box_index(db, x, y, z)];
                    if (o != v) { o = v; P[e].stamp[to][sweep_box_brick(db, x, y, z)] = epoch; }
                }
            }
        }
    }
    fdwk_sweep_view view(int e, int dir) {
        const int axis = dir / 2, l = axis == 1 ? 1 : 0;
        sweep_view w;
        sweep_view_of(l ? &parts.b[e] : &parts.a[e], axis, dir % 2 ? -1 : 1, l ? 2 : 1, &w);
        fdwk_sweep_view o;
        o.t = P[e].t[l].data() + w.base;
        o.s = d->speed ? (const void *)(P[e].s[l].data() + w.base) : nullptr;
        o.stamp = P[e].stamp[l].data();
        o.U = w.U; o.V = w.V; o.su = w.su; o.sv = w.sv; o.sp = w.sp; o.bu = w.bu; o.bv = w.bv; o.bp = w.bp;
        o.ou = w.ou; o.ov = w.ov; o.op = w.op;
        o.e0 = e > 0 ? parts.reach : 0;
        o.e1 = e + 1 < parts.nparts ? parts.reach : 0;
        return o;
    }
    long deadlocks = 0;
    void subsweep(int dir, int epoch, int skip_before, sweep_stats *st) {
        const int axis = dir / 2, l = axis == 1 ? 1 : 0, sign = dir % 2 ? -1 : 1;
        const bool cut_u = axis != 1;
        const int np = parts.nparts;
        const int Pl = axis == 0 ? prob.nx : axis == 1 ? prob.ny : prob.nz;
        std::vector<fdwk_sweep_part> desc(np);
        for (int e = 0; e < np; e++) {
            fdwk_sweep_part &h = desc[e];
            memset(&h, 0, sizeof h);
            h.w = view(e, dir);
            swk::Ext x = swk::ext_of(h.w, cut_u);
            long long cells = (long long)x.Ul * x.Vl;
            int nb = 1 + (int)(rng() % std::min<long long>(cells, 90));
            h.nblocks = nb;
            h.flags = P[e].flags.data();
        }
        for (int e = 0; e < np; e++)
            for (int s = 0; s < 2; s++) {
                int nb = s ? e + 1 : e - 1;
                if (nb < 0 || nb >= np) continue;
                desc[e].nb[s] = desc[nb].w;
                desc[e].nb_blocks[s] = desc[nb].nblocks;
                desc[e].nb_flags[s] = desc[nb].flags;
            }
        // pre-pass
        std::vector<const int *> acts(np);
        for (int e = 0; e < np; e++) {
            const sweep_box *b = l ? &parts.b[e] : &parts.a[e];
            int ext = b->hi[axis] - b->lo[axis] + 2 * b->pad[axis];
            int nl = (ext + 7) >> 3;
            int lo = INT_MAX, hi = -1;
            for (long long q = 0; q < b->nbricks; q++)
                if (P[e].stamp[l][q] >= skip_before) { int L = (int)(q / b->bstride[axis] % nl); lo = std::min(lo, L); hi = std::max(hi, L); }
            P[e].act[0] = lo == INT_MAX ? 0x7f7f7f7f : lo;
            P[e].act[1] = hi;
            acts[e] = P[e].act;
        }
        const int s_first = no_skip ? 1 : swk::first_step(acts.data(), np, Pl, sign);
        const unsigned long long tag = (unsigned long long)(unsigned)epoch << 32;
        struct Blk { int e; swk::Block k; int s; };
        std::vector<Blk> blks;
        for (int e = 0; e < np; e++)
            for (int b = 0; b < desc[e].nblocks; b++)
                blks.push_back({e, swk::block_of(&desc[e], 1, b, cut_u), s_first});
        const void *geo = sizeof(R) == 8 ? (const void *)&d->geo[dir] : (const void *)&d->geo_f[dir];
        swk::Figures f = {0, 0, 0, 0};
        const int W = parts.reach;
        std::vector<int> ready;
        for (;;) {
            ready.clear();
            bool alldone = true;
            for (size_t i = 0; i < blks.size(); i++) {
                Blk &B = blks[i];
                if (B.s >= Pl) continue;
                alldone = false;
                bool ok = true;
                if (B.s > s_first) {
                    unsigned long long need = tag | (unsigned)(B.s - 1);
                    for (int j = B.k.lo[0]; j <= B.k.hi[0] && ok; j++) ok = desc[B.e].flags[j] >= need;
                    if (swk::waits_across(B.s, W))
                        for (int side = 0; side < 2; side++)
                            for (int j = B.k.lo[side + 1]; j <= B.k.hi[side + 1] && ok; j++) ok = desc[B.e].nb_flags[side][j] >= need;
                }
                if (ok) ready.push_back((int)i);
            }
            if (alldone) break;
            if (ready.empty()) { /* every block waits for another: a deadlock on the GPU */
                deadlocks++;
                return;
            }
            Blk &B = blks[ready[rng() % ready.size()]];
            const swk::Plane pl = swk::plane_of(desc[B.e].w, cut_u, Pl, sign, B.s, W, no_skip ? INT_MIN : skip_before, epoch);
            for (long long q = B.k.q0; q < B.k.q1; q++) {
                int col = (int)(q % B.k.x.Ul), row = (int)(q / B.k.x.Ul);
                if (d->metric.field) swk::cell<R, true>(geo, desc[B.e].w, desc[B.e], B.k.x, pl, col, row, f);
                else swk::cell<R, false>(geo, desc[B.e].w, desc[B.e], B.k.x, pl, col, row, f);
            }
            desc[B.e].flags[B.k.b] = tag | (unsigned)B.s;
            B.s++;
        }
        st->max_change = std::max(st->max_change, f.mx);
        st->changed += f.changed; st->reached += f.reached; st->computed += f.computed;
    }
    void step(long it) {
        long s = it + 1;
        sweep_stats st; memset(&st, 0, sizeof st);
        for (int op = 0; op < SWEEP_NOPS; op++) {
            int epoch = sweep_epoch(s, op);
            if (op == SWEEP_OP_TO_A || op == SWEEP_OP_TO_B) shuffle(op == SWEEP_OP_TO_A ? 0 : 1, epoch, sweep_copy_after(s, op));
            else subsweep(sweep_op_direction(op), epoch, no_skip ? INT_MIN : sweep_skip_before(s, op), &st);
        }
        log.push_back(st);
    }
    std::vector<double> fetch() {
        std::vector<double> out((size_t)prob.nx * prob.ny * prob.nz);
        for (int e = 0; e < parts.nparts; e++) {
            const sweep_box *b = &parts.b[e];
            for (int z = b->lo[2]; z < b->hi[2]; z++) for (int y = 0; y < prob.ny; y++) for (int x = 0; x < prob.nx; x++)
                out[(size_t)x + (size_t)prob.nx * ((size_t)y + (size_t)prob.ny * z)] = (double)P[e].t[1][sweep_box_index(b, x, y, z)];
        }
        return out;
    }
};

/* One case: n sweeps on the CPU engine (one device) and on the walk with nparts parts;
 * returns 1 when T, a sweep's figures or a deadlock says they differ. */
static int run(const char *json, int nparts, int reach, int full, int sweeps, bool f32)
{
    fdw_spec *spec = NULL; fdw_error err;
    ck_assert_msg(fdw_spec_parse(json, strlen(json), NULL, &spec, &err) == FDW_OK, "parse: %s", err.message);
    fdw_tuning tu; memset(&tu, 0, sizeof tu); tu.sweep_full = full;
    fdw_problem prob; memset(&prob, 0, sizeof prob);
    ck_assert_msg(fdw_problem_build(spec, &tu, &prob, &err) == FDW_OK, "build: %s", err.message);
    const fdw_sweep_data *d = (const fdw_sweep_data *)prob.kdata;
    int ids[8] = {0};
    fdw_plan plan1, plan;
    fdw_plan_slabs(prob.nz, 1, 1, ids, &plan1, &err);
    fdw_plan_slabs(prob.nz, 1, nparts, ids, &plan, &err);
    // CPU reference on one device
    void *cctx = NULL;
    ck_assert_msg(fdw_sweep_cpu_engine.create(&prob, &plan1, &cctx, &err) == FDW_OK, "cpu: %s", err.message);
    for (long it = 0; it < sweeps; it++) fdw_sweep_cpu_engine.step(cctx, it, &err);
    const size_t n = (size_t)prob.nx * prob.ny * prob.nz;
    std::vector<double> ref(n);
    ((const sweep_engine *)cctx)->fetch(cctx, ref.data(), 1, &err);
    long nlog; const sweep_stats *clog = ((const sweep_engine *)cctx)->log(cctx, &nlog);
    int bad = 0;
    auto go = [&](auto *tag) {
        using R = std::remove_pointer_t<decltype(tag)>;
        Mock<R> m; m.prob = prob; m.d = d; m.no_skip = full;
        const int nn[3] = {prob.nx, prob.ny, prob.nz};
        sweep_parts_init(&m.parts, nn, &plan, reach);
        m.upload();
        for (long it = 0; it < sweeps; it++) m.step(it);
        std::vector<double> T = m.fetch();
        size_t diff = 0, first = n;
        for (size_t q = 0; q < n; q++) if (memcmp(&T[q], &ref[q], 8)) { diff++; if (first == n) first = q; }
        int statbad = 0;
        for (long s = 0; s < sweeps; s++) if (m.log[s].changed != clog[s].changed || m.log[s].reached != clog[s].reached || m.log[s].max_change != clog[s].max_change) statbad++;
        printf("%s, %d parts, reach %d (%d taken), %s: %zu cells differ, figures differ in %d "
               "sweeps, %ld deadlocks\n", f32 ? "float32" : "float64", nparts, reach,
               m.parts.reach, full ? "computing all" : "skipping", diff, statbad, m.deadlocks);
        if (diff)
            printf("  first at %zu: walk %.17g, CPU engine %.17g\n", first, T[first], ref[first]);
        bad += diff > 0 || statbad || m.deadlocks;
    };
    if (f32) go((float *)nullptr); else go((double *)nullptr);
    fdw_sweep_cpu_engine.destroy(cctx);
    fdw_problem_free(&prob);
    fdw_spec_free(spec);
    return bad;
}

static const char *const METRICS[2] = {
    "\"F\": 1.1, \"psi\": 1.0, \"a\": [-0.34, 0.4, 0.7], \"initial\": {\"points\": [{\"position\": "
    "[3.1, 6.2, 5.05], \"t0\": 0.5}, {\"position\": [8.0, 1.0, 2.0]}]}",
    "\"velocity\": {\"type\": \"gaussian\", \"background\": 2, \"center\": [5, 5, 5], \"sigma\": 2, "
    "\"dv\": -1}, \"initial\": {\"surface\": {\"type\": \"sinusoid\", \"z0\": 4.5, \"amplitude\": "
    "[1.2, 0.8], \"wavelength\": [6, 7.5], \"phase\": [0, 1]}}"};

START_TEST(walk_equals_cpu)
{
    int bad = 0;
    for (int m = 0; m < 2; m++)
        for (int f32 = 0; f32 < 2; f32++) {
            char json[2048];
            snprintf(json, sizeof json,
                     "{\"kind\": \"sweep\", \"grid\": {\"nx\": 33, \"ny\": 31, \"nz\": 29, \"dx\": "
                     "0.31, \"dy\": 0.33, \"dz\": 0.35}, \"precision\": \"%s\", %s, \"sweeps\": 3, "
                     "\"output\": {\"volume\": \"f64\", \"slices\": []}}",
                     f32 ? "float32" : "float64", METRICS[m]);
            /* parts, reach, computing all */
            static const int cfg[][3] = {{1, 8, 0}, {2, 1, 0}, {2, 8, 1}, {3, 8, 0}, {5, 3, 0}};
            for (const auto &c : cfg)
                if (!f32 || c[0] == 3)
                    bad += run(json, c[0], c[1], c[2], 3, f32 != 0);
        }
    ck_assert_msg(bad == 0, "%d cases of the walk differ from the CPU engine", bad);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sweep_walk");
    TCase *tc = tcase_create("walk");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, walk_equals_cpu);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
