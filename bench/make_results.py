#!/usr/bin/env python3
"""make_results.py: writes bench/RESULTS.md, one current table per benchmark, from the JSON
records in bench/results/ (what fdwave-bench --json, fdwave-bench-cpu --json and
bench_http.sh with JSON=FILE write). A table row is the newest record of its case on its
device; older records stay in the folder and in git history, not in the document. Records
of experiments (files named after the run with a suffix, e.g. ...-h100x1-zring.json: code
that was measured and dropped, docs/gpu.md's decisions) and of single --case runs are
listed at the end, with the records that are not JSON. --check compares instead of writing
(exit 1 when RESULTS.md is stale).

usage: bench/make_results.py [--check] [--results DIR] [--out FILE]
"""
import argparse
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import kernel_table  # noqa: E402  (the kept configurations, from the code)

# A run of the benchmark program on the product's code: DATE-TIME-DEVICExN.json, or a CPU
# or HTTP record file. Anything else is an experiment's record.
PRODUCT_FILE = re.compile(r"^(\d{4}-\d\d-\d\d-\d{6}-[a-z0-9]+x\d+|cpu-[0-9-]+|\d{4}-\d\d-\d\d-\d{6}-http)\.json$")
DERIV_TAGS = {"default": "default", "deriv-scalar": "scalar", "deriv-vector-L1-8blocks": "walk",
              "deriv-tile-32x8": "tile"}
GPU_SECTION = {"default": None, "seed-table1": "stencil", "seed-table2": "acoustic",
               "tune": "tune", "vs-seed": "seed", "seed16x16": "seed", "bare-for-job": "job",
               "fdw_run": "job", "backend": "largest"}


def load(results):
    """Every record of every JSON file, with its file name; plus the other files."""
    recs, others = [], []
    for path in sorted(glob.glob(os.path.join(results, "*"))):
        name = os.path.basename(path)
        if not name.endswith(".json"):
            others.append(name)
            continue
        with open(path) as f:
            data = json.load(f)
        for i, r in enumerate(data if isinstance(data, list) else [data]):
            r = dict(r)
            r["_file"], r["_i"], r["_product"] = name, i, bool(PRODUCT_FILE.match(name))
            recs.append(r)
    return recs, others


def newest(recs, key, latest_run=True):
    """The newest record per (key(record), device); key returns None to leave a record out.
    latest_run: only records of the newest run (record file) that measured the benchmark on
    that device, so cases a later version of the program no longer measures drop out."""
    if latest_run:
        last = {}
        for r in recs:
            if key(r) is not None:
                dev, stamp = r.get("device", ""), (r.get("date", ""), r["_file"])
                last[dev] = max(last.get(dev, stamp), stamp)
        recs = [r for r in recs if r["_file"] == last.get(r.get("device", ""), ("", ""))[1]]
    best = {}
    for r in recs:
        k = key(r)
        if k is None:
            continue
        k = (k, r.get("device", ""))
        stamp = (r.get("date", ""), r["_file"], r["_i"])
        if k not in best or stamp > best[k][0]:
            best[k] = (stamp, r)
    return {k: v[1] for k, v in best.items()}


def grid(r):
    return f"{r['nx']}x{r['ny']}x{r['nz']}"


def command(r):
    """The command that made the record: its own field, else the one its section runs."""
    if r.get("command"):
        return r["command"]
    kind, variant = r.get("kind", ""), r.get("variant")
    if r.get("gpus", 1) == 0:  # fdwave-bench-cpu
        c = "fdwave-bench-cpu --kind %s --order %d --nx %d --ny %d --nz %d" % (
            kind, r["order"], r["nx"], r["ny"], r["nz"])
        if r.get("slabs", 1) > 1:
            c += " --slabs %d" % r["slabs"]
        if r.get("sponge"):
            c += " --sponge"
        return ("OMP_WAIT_POLICY=%s " % r["omp_wait_policy"] if r.get("omp_wait_policy") else "") + c
    if kind == "http":
        return "bench/bench_http.sh BUILD"
    if kind == "copy":
        return "fdwave-bench (every run)"
    if variant in ("backend-1gpu", "backend-multi"):
        return "fdwave-bench --gpus %d --only %s" % (max(2, r.get("gpus", 2)), "huge" if kind == "acoustic-huge" else "multi")
    if kind == "speedup-vs-seed16x16":
        return "fdwave-bench --only seed"
    if kind == "derivative":
        return "fdwave-bench --only derivative"
    section = GPU_SECTION.get(variant) or ("stencil" if kind == "stencil" else "acoustic")
    return "fdwave-bench --only " + section


def pct(x):
    return "%.1f%%" % (100 * x) if isinstance(x, (int, float)) else "-"


def gpts(r):
    return "%.1f" % (r["mpts"] / 1000) if r.get("mpts") else "-"


def date(r):
    return r.get("date", "").replace("T", " ").replace("Z", "")


def short_device(d):
    return d.replace("NVIDIA ", "").replace(" 80GB HBM3", "")


def row_tail(r):
    return f"| {short_device(r.get('device', ''))} | {date(r)} | `{command(r)}` | {r['_file']} |"


TAIL_HEAD = "| device | date (UTC) | command | record |"
TAIL_RULE = "|---|---|---|---|"


def section(title, what, head, rows):
    if not rows:
        return []
    cols = head.count("|") - 1 + 4
    return [f"## {title}", "", what, "", head[:-1] + TAIL_HEAD, "|" + "---|" * cols] + rows + [""]


def build(recs, others, configs):
    gpu = [r for r in recs if r["_product"] and r.get("gpus", 1) != 0]
    used = set()
    out = ["# Benchmark results", "",
           "Generated by `bench/make_results.py` from the records in `bench/results/`; do not edit.",
           "Each row is the newest record of its case on its device; every earlier figure is in the",
           "records and in git history. \"Of roofline\" is the rate times the bytes a point must move",
           "(16 acoustic, 8 stencil and derivative) over the copy bandwidth the same run measured",
           "(docs/gpu.md: the roofline model). Run `tests/gpu/run.sh bench` (or `fdwave-bench --json",
           "FILE`) on a GPU, put the record in `bench/results/`, and rerun this script.", ""]

    def use(rows_by_key):
        for r in rows_by_key.values():
            used.add(r["_file"])
        return rows_by_key

    # Copy bandwidth
    best = use(newest([r for r in gpu if r.get("kind") == "copy"], lambda r: "copy"))
    rows = [f"| {r['copy_gbs']:.0f} GB/s | {r['copy_gbs'] / 16:.1f} / {r['copy_gbs'] / 8:.1f} "
            + row_tail(r) for r in sorted(best.values(), key=lambda r: r.get("device", ""))]
    out += section("Device copy bandwidth", "cudaMemcpy device to device, bytes read + written, "
                   "median of 30; the floors are Gpoints/s at 16 and 8 bytes per point.",
                   "| copy | floor 16 B / 8 B (Gpoints/s) |", rows)

    # Kernels with the tuned default, every order
    for kind, bpp in (("acoustic", 16), ("stencil", 8)):
        best = use(newest([r for r in gpu if r.get("kind") == kind and r.get("variant") == "default"],
                          lambda r: (r["order"], r["nx"], r["ny"], r["nz"])))
        rows = [f"| {r['order']} | {grid(r)} | {gpts(r)} | {pct(r.get('roofline_fraction'))} "
                + row_tail(r) for r in sorted(best.values(), key=lambda r: (r.get("device"), r["nx"], r["order"]))]
        out += section(f"{kind.capitalize()} kernel, tuned default, every order",
                       f"One update of the whole grid (fdwk_{kind}_step), random fields"
                       + (", sponge arrays passed as in a job" if kind == "acoustic" else "")
                       + f"; {bpp} B/point.", "| order | grid | Gpoints/s | of roofline |", rows)

    # z-chunk sweep, order 8, of the configuration order 8 runs
    _, defaults = kernel_table.read_configs(os.path.join(os.path.dirname(HERE), "kernels", "common", "fd_launch.cuh"))
    names = {c["desc"]: c["name"] for c in configs}
    order8 = {kind: n for kind in defaults for r, n, _ in defaults[kind] if r == 4}
    best = use(newest([r for r in gpu if r.get("variant") == "tune" and r.get("tile") in names
                       and names[r["tile"]] == order8.get(r.get("kind"))],
                      lambda r: (r["kind"], r["nx"], r["ny"], r["nz"], names[r["tile"]], r.get("zchunk", 0))))
    rows = [f"| {r['kind']} | {grid(r)} | {names[r['tile']]} | "
            f"{'auto' if r.get('zchunk', 0) == 0 else 'whole z' if r['zchunk'] < 0 else r['zchunk']} | "
            f"{gpts(r)} | {pct(r.get('roofline_fraction'))} " + row_tail(r)
            for r in sorted(best.values(), key=lambda r: (r.get("device"), r["kind"], r["nx"], names[r["tile"]], r.get("zchunk", 0) % 100000))]
    out += section("z-chunk sweep, order 8",
                   "Planes per block along z forced on the configuration order 8 runs (auto: the "
                   "tuned table's chunk and fit rule).",
                   "| kind | grid | configuration | z chunk | Gpoints/s | of roofline |", rows)

    # Stencil on the seed's table 1
    best = use(newest([r for r in gpu if r.get("variant") == "seed-table1"],
                      lambda r: (r["order"], r["nx"], r["ny"], r["nz"])))
    rows = [f"| {r['order']} | {grid(r)} | {gpts(r)} | {pct(r.get('roofline_fraction'))} " + row_tail(r)
            for r in sorted(best.values(), key=lambda r: (r.get("device"), r["nx"], r["nz"], r["order"]))]
    out += section("Stencil kernel on the seed paper's table 1 sizes", "Tuned default.",
                   "| order | grid | Gpoints/s | of roofline |", rows)

    # Ours against the seed paper's 16x16 kernel, same run
    pairs = {}
    for r in gpu:
        if r.get("variant") in ("vs-seed", "seed16x16", "seed-table2"):
            k = (r["_file"], r["nx"], r["ny"], r["nz"], r.get("device"))
            pairs.setdefault(k, {})["seed" if r["kind"] == "acoustic-seed16x16" else "ours"] = r
    best = {}
    for (f, nx, ny, nz, dev), p in pairs.items():
        if "seed" in p and "ours" in p:
            k = ((nx, ny, nz), dev)
            if k not in best or (p["ours"]["date"], f) > (best[k]["ours"]["date"], best[k]["ours"]["_file"]):
                best[k] = p
    rows = []
    for k in sorted(best, key=lambda k: (k[1] or "", k[0])):
        p = best[k]
        used.add(p["ours"]["_file"])
        rows.append(f"| {grid(p['ours'])} | {gpts(p['ours'])} | {gpts(p['seed'])} | "
                    f"{p['ours']['mpts'] / p['seed']['mpts']:.2f}x " + row_tail(p["ours"]))
    out += section("Acoustic order 8 against the seed paper's 16x16 kernel",
                   "The seed's design (bench/kernels/seed16.cu) on the same grid in the same run, "
                   "no sponge in either.", "| grid | ours (Gpoints/s) | 16x16 (Gpoints/s) | ratio |", rows)

    # Derivative
    best = use(newest([r for r in gpu if r.get("kind") == "derivative" and r.get("variant") in DERIV_TAGS],
                      lambda r: (r.get("axis"), r["nx"], r["ny"], r["nz"], DERIV_TAGS[r["variant"]])))
    order_v = list(DERIV_TAGS.values())
    rows = [f"| {r.get('axis')} | {grid(r)} | {DERIV_TAGS[r['variant']]} | {gpts(r)} | "
            f"{pct(r.get('roofline_fraction'))} " + row_tail(r)
            for r in sorted(best.values(), key=lambda r: (r.get("device"), r["nx"], r.get("axis"), order_v.index(DERIV_TAGS[r["variant"]])))]
    out += section("Derivative kernel (8th order, periodic)",
                   "Each version of kernels/derivative (`--deriv`); 8 B/point, so the fraction is the "
                   "effective bandwidth over the copy's.", "| axis | grid | version | Gpoints/s | of copy rate |", rows)

    # Whole job
    best = use(newest([r for r in gpu if r.get("kind") == "acoustic-job"],
                      lambda r: (r["nx"], r["ny"], r["nz"], r.get("job"))))
    rows = [f"| {grid(r)} | {r.get('job')} | {gpts(r)} | {pct(r.get('job_fraction_of_bare'))} | "
            f"{r.get('wall_s', 0):.1f} s " + row_tail(r)
            for r in sorted(best.values(), key=lambda r: (r.get("device"), r["nx"], r.get("job", "")))]
    out += section("Whole acoustic job through fdw_run, order 8",
                   "1 source, 1000 receivers, snapshots every 100 steps (xy and xz slices, PNG and raw) "
                   "unless the case says otherwise; rate over the time loop against the bare kernel "
                   "on the same grid in the same run.",
                   "| grid | case | Gpoints/s | of the bare kernel | wall |", rows)

    # Largest grid
    best = use(newest([r for r in gpu if r.get("kind") == "acoustic-largest"], lambda r: "largest"))
    rows = [f"| {grid(r)} | {r['points'] / 1e9:.2f} | {pct(r.get('fraction_of_free_over_12'))} | {gpts(r)} "
            + row_tail(r) for r in best.values() if "points" in r]
    out += section("Largest acoustic grid on one GPU", "As many 2048x2048 planes as fit; 12 bytes per "
                   "point (u, u_prev, (v dt)^2).", "| grid | Gpoints | of free memory / 12 B | Gpoints/s |", rows)

    # Several GPUs
    multi = [r for r in gpu if r.get("variant") in ("backend-1gpu", "backend-multi") and r.get("kind") == "acoustic"]
    best = use(newest(multi, lambda r: (r["nx"], r["ny"], r["nz"], r["gpus"]), latest_run=False))
    rows = []
    for r in sorted(best.values(), key=lambda r: (r.get("device"), r["nx"], r["nz"], r["gpus"])):
        if "speedup" in r:
            rows.append(f"| {grid(r)} | {r['gpus']} | {gpts(r)} | {r['speedup']:.2f}x | "
                        f"{r.get('exposed_exchange_ms', 0):.3f} ms " + row_tail(r))
        else:
            rows.append(f"| {grid(r)} | {r['gpus']} | {gpts(r)} | (reference) | - " + row_tail(r))
    huge = use(newest([r for r in gpu if r.get("kind") == "acoustic-huge"],
                      lambda r: (r["nx"], r["ny"], r["nz"], r["gpus"]), latest_run=False))
    rows += [f"| {grid(r)} | {r['gpus']} | {gpts(r)} | (does not fit one GPU) | - " + row_tail(r) for r in huge.values()]
    out += section("Several GPUs, acoustic order 8 through the backend",
                   "Wall clock per step, one host thread per GPU, peer copies; \"not hidden\" is the step "
                   "time minus the largest slab's compute time at the 1-GPU rate.",
                   "| grid | GPUs | Gpoints/s | speedup | exchange not hidden |", rows)

    # Surveys on several GPUs
    best = use(newest([r for r in gpu if r.get("kind") == "acoustic-survey"],
                      lambda r: (r["nx"], r.get("shots"), r.get("steps_per_shot"), r["gpus"]), latest_run=False))
    rows = [f"| {r.get('shots')} x {grid(r)}, {r.get('steps_per_shot')} steps | {r['gpus']} | {r.get('groups')} | "
            f"{r.get('seconds', 0):.2f} s | " + (f"{r['speedup']:.2f}x" if "speedup" in r else "(reference)") + " "
            + row_tail(r) for r in sorted(best.values(), key=lambda r: (r.get("device"), r["nx"], r["gpus"]))]
    out += section("Surveys on several GPUs (fdwave-bench --only survey)",
                   "A whole survey job through fdw_run on the CUDA backend: acoustic order 8, layered model, "
                   "sponge, a 201-receiver spread moving with the shot; the shots spread over the GPUs in "
                   "groups (the engine's choice: one shot per GPU where a shot fits one). The time is the "
                   "job's: the model, each shot's set-up, the time loop and its SEG-Y outputs.",
                   "| survey | GPUs | shots at once | job time | speedup |", rows)

    # ETE kind
    best = use(newest([r for r in gpu if r.get("kind") == "ete"],
                      lambda r: (r["nx"], r["ny"], r["nz"], r.get("variant"))))
    rows = [f"| {r.get('variant')} | {grid(r)} | {gpts(r)} | {pct(r.get('roofline_fraction'))} "
            + row_tail(r) for r in sorted(best.values(), key=lambda r: (r.get("device"), r["nx"], r.get("variant", "")))]
    out += section("ETE kind (fdwave-bench --only ete)",
                   "37-point velocity-fitted operator, 900 velocity bins at random; the roofline is "
                   "14 B/point (p(t), p(t-dt), the 2-byte bin index, the write) at the same run's copy "
                   "rate; whole-job and Table 3 rows are Mpoints/s of the time loop.",
                   "| variant | grid | Gpoints/s | of roofline |", rows)

    # Sweep kind
    best = use(newest([r for r in gpu if r.get("kind") == "sweep"],
                      lambda r: (r["nx"], r["ny"], r["nz"], r.get("variant"), r.get("precision"), r.get("gpus"))))

    def sec(x):
        return "%.3f s" % x if isinstance(x, (int, float)) else "-"
    rows = [f"| {r.get('variant')} | {grid(r)} | {r.get('precision')} | {r.get('gpus')} | "
            f"{r.get('sweeps')} | {sec(r.get('seconds'))} | {sec(r.get('shuffle_s'))} | "
            f"{pct(r.get('computed_fraction'))} | {sec(r.get('memory_floor_s'))} | {sec(r.get('compute_floor_s'))} "
            + row_tail(r) for r in sorted(best.values(), key=lambda r: (r.get("device"), r["nx"], str(r.get("precision")), r.get("variant", ""), r.get("gpus", 1)))]
    out += section("Sweep kind (fdwave-bench --only sweep)",
                   "Whole sweeps (6 sub-sweeps each); seed-case: point source, constant F, "
                   "psi, a, exact skipping of unchanged tiles; every-plane: every point computed. "
                   "\"slabs\": the run's slabs, one per GPU in the variants named -N-gpus, else all on "
                   "one GPU. Floors: memory (a sub-sweep reads "
                   "and writes T once) and compute (the update's cost measured alone).",
                   "| case | grid | precision | slabs | sweeps | time | shuffles | points computed | memory floor | compute floor |", rows)

    # CPU backend
    cpu = [r for r in recs if r["_product"] and r.get("gpus", 1) == 0 and r.get("kind") != "http"]
    for r in cpu:
        r["_device"], r["device"] = r.get("device", ""), "cpu"  # newest per case, any thread count
    best = use(newest(cpu, lambda r: (r["kind"], r["order"], r["nx"], r["ny"], r["nz"], r.get("slabs", 1),
                                      bool(r.get("sponge"))), latest_run=False))
    for r in cpu:
        r["device"] = r.pop("_device")
    rows = [f"| {r['kind']} | {r['order']} | {grid(r)} | {r.get('slabs', 1)} | "
            f"{'yes' if r.get('sponge') else 'no'} | {gpts(r)} | "
            f"{pct(r.get('roofline_fraction'))} | {r.get('note', '')} " + row_tail(r)
            for r in sorted(best.values(), key=lambda r: (r.get("device"), r["kind"], r["order"], r.get("slabs", 1), str(r.get("omp_wait_policy"))))]
    out += section("CPU backend (fdwave-bench-cpu)",
                   "Median of 5 repetitions of 10 steps on the CPU backend; the roofline is the same "
                   "run's parallel copy bandwidth.", "| kind | order | grid | slabs | sponge | Gpoints/s | of roofline | note |", rows)

    # HTTP
    best = use(newest([r for r in recs if r["_product"] and r.get("kind") == "http"],
                      lambda r: (r.get("endpoint"), r.get("conns"), r.get("watchers")), latest_run=False))

    def v(x, unit=""):
        return "-" if x is None else (x if isinstance(x, str) else "%g" % x) + unit
    rows = [f"| {r.get('endpoint')} | {r.get('conns')} | {r.get('watchers')} | {v(r.get('req_s'))} | "
            f"{v(r.get('p50_ms'), ' ms')} | {v(r.get('p99_ms'), ' ms')} | {v(r.get('note'))} " + row_tail(r)
            for r in sorted(best.values(), key=lambda r: (r.get("device"), r.get("endpoint", "")))]
    out += section("HTTP: fdwaved under load (bench_http.sh)",
                   "wrk at the given connections while the given SSE watchers follow a running job's "
                   "events; CPU backend, POSTed jobs queue behind a waiting one.",
                   "| endpoint | connections | watchers | req/s | p50 | p99 | note |", rows)

    # Imaging (tests/gpu/run.sh imaging: test_gpu_imaging --bench; server: the daemon survey):
    # every record of a benchmark in date order, a row each.
    def dated(benchmark, row, title, what, head):
        got = sorted((r for r in recs if r.get("benchmark") == benchmark),
                     key=lambda r: r.get("date", ""))
        used.update(r["_file"] for r in got)
        return section(title, what, head, [row(r) + row_tail(r) for r in got])

    def ckpt_cols(r):
        if "rtm_checkpoints_s" not in r:
            return "| | "
        return (f"| {r['rtm_checkpoints_over_forward']:.2f}x | "
                f"{r['gradient_checkpoints_over_forward']:.2f}x ")

    def phase_cols(r):
        slabs = ""
        if "rtm_2slabs_one_gpu_s" in r:
            slabs = (f"{r['rtm_2slabs_one_gpu_s']:.3f} s"
                     f"{'' if r['rtm_2slabs_image_equal'] else ' (image differs!)'}")
        if "rtm_forward_pass_s" not in r:
            return f"| | {slabs} | {r.get('note', '')} "
        return (f"| {r['rtm_forward_pass_s']:.2f} / {r['rtm_backward_pass_s']:.2f} / "
                f"{r['rtm_image_s']:.2f} s | {slabs} | {r.get('note', '')} ")

    out += dated("imaging",
                 lambda r: f"| {r['grid']}^3 | {r['nt']} | "
                           f"{r.get('reconstruction', 'checkpoints')} | {r['forward_s']:.3f} s | "
                           f"{r['rtm_s']:.3f} s | {r['gradient_s']:.3f} s | "
                           f"{r['rtm_over_forward']:.2f}x | {r['gradient_over_forward']:.2f}x "
                           + ckpt_cols(r) + phase_cols(r),
                 "Imaging: one shot's rtm and gradient against its forward run",
                 "One 512^3 shot, 3000 steps, order 8, sponge 20, 451 receivers, on one GPU; "
                 "every record in date order (the speed work of issue 27, docs/imaging.md); "
                 "scheme: the reconstruction of the rtm and gradient columns, and where a record "
                 "has them, the checkpointed scheme's ratios of the same run.",
                 "| grid | steps | scheme | forward | rtm | gradient | rtm / forward | "
                 "gradient / forward | checkpoints: rtm / forward | gradient / forward | "
                 "rtm's forward / backward / image passes | rtm on 2 slabs of the one GPU "
                 "| note |")
    # Checkpoint cost (tests/gpu/run.sh checkpoint: bench/ckpt_cost.sh): a row a record.
    ck = sorted((r for r in recs if str(r.get("what", "")).startswith("checkpoint cost")),
                key=lambda r: r["_file"])
    used.update(r["_file"] for r in ck)
    out += section("Checkpoint cost", "bench/ckpt_cost.sh: an acoustic order-8 job with a CPML "
                   "run without checkpoints and with one every checkpoint_steps steps; what a "
                   "checkpoint cost the time loop (issue 26's goal: 1.5 s for 9.6 GiB).",
                   "| grid | steps | every | size | loop paused (engine) | by the loop times' "
                   "difference | write |",
                   [f"| {'x'.join(str(n) for n in r['job']['grid'])} | {r['job']['nt']} | "
                    f"{r['checkpoint_steps']} | {r['checkpoint_mib'] / 1024:.1f} GiB | "
                    + (f"{r['loop_paused_seconds']:.3f} s | " if 'loop_paused_seconds' in r
                       else "(written in the loop) | ")
                    + f"{r['seconds_per_checkpoint_by_difference']:.2f} s | "
                    + (f"{r['write_seconds']:.1f} s " if 'write_seconds' in r else "")
                    + row_tail(dict(r, device=r.get(
                        'device', r.get('gpu', '')))) for r in ck])
    out += dated("rtm_survey_daemon",
                 lambda r: f"| {'x'.join(str(n) for n in r['grid'])} | {r['nt']} | {r['shots']} | "
                           f"{r['receivers']} | {r['gpus']} | {r['forward_survey_s']:.2f} s | "
                           f"{r['rtm_survey_s']:.2f} s | {r['rtm_s_per_shot']:.3f} s ",
                 "Imaging: a survey through fdwaved",
                 "tests/gpu/test_daemon_rtm_survey: an acoustic survey, then an rtm survey of its "
                 "traces, submitted to fdwaved on GPU 0; wall times as a client sees them, "
                 "submission to the end.",
                 "| grid | steps | shots | receivers | GPUs | forward survey | rtm survey | rtm per shot |")

    # What is not in a table
    rest = sorted({r["_file"] for r in recs} - used)
    out += ["## Records not in a current table", "",
            "Experiments (code measured and dropped: docs/gpu.md, decisions), single `--case` "
            "sweeps and superseded runs; their figures are in the files and in git history:", ""]
    out += [", ".join(rest), ""] if rest else ["(none)", ""]
    out += ["Records not in JSON (profiler and log output):", ""]
    out += [", ".join(others), ""] if others else ["(none)", ""]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="only compare; exit 1 if RESULTS.md differs")
    ap.add_argument("--results", default=os.path.join(HERE, "results"))
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS.md"))
    a = ap.parse_args()
    configs, _ = kernel_table.read_configs(os.path.join(os.path.dirname(HERE), "kernels", "common", "fd_launch.cuh"))
    recs, others = load(a.results)
    return kernel_table.write_or_check(a.out, build(recs, others, configs), a.check,
                                       f"not what bench/make_results.py makes of {a.results}; run it")

if __name__ == "__main__":
    sys.exit(main())
