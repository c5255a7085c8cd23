"""textfmt.py — the text formatters of `python -m fdwave_client`, written to print exactly
what the C `fdwave` CLI prints (clients/cli/format.c, models.c, engine/tools/progress_bar.c):
the parity test (tests/clients/test_cli_parity.py) runs both and compares their output."""
import json


def show(v):
    """A JSON value as short text (fdc_fmt_value): strings bare, null as "-", integers
    as they are, reals with %g, true/false, arrays and objects as compact JSON."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return v
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "%g" % v
    return json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def fmt_rate(mpts):
    """"123.4 Mpt/s", or from 1000 Mpt/s "12.35 Gpt/s" (progress_fmt_rate)."""
    mpts = mpts or 0.0
    return "%.2f Gpt/s" % (mpts / 1000.0) if mpts >= 1000.0 else "%.1f Mpt/s" % mpts


def fmt_shots(d):
    """A survey's "shots 3/12, shot 5 " before the steps (fmt_shots in progress_bar.c);
    "" for a single-shot job."""
    n = d.get("nshots")
    if not isinstance(n, int) or n <= 0:
        return ""
    done = d.get("shots_done") or 0
    shot = d.get("shot") or 0
    if shot > 0:
        return "shots %d/%d, shot %d " % (done, n, shot)
    return "shots %d/%d " % (done, n)


def fmt_time(s):
    """"45s", "3m07s", "2h05m"; "-" when unknown (progress_fmt_time)."""
    if s is None or s != s or s < 0 or s > 1e9:
        return "-"
    t = int(s + 0.5)
    if t < 60:
        return "%ds" % t
    if t < 3600:
        return "%dm%02ds" % (t // 60, t % 60)
    return "%dh%02dm" % (t // 3600, (t % 3600) // 60)


def fmt_bytes(b):
    """"812 B", "1.5 GiB": the unit that keeps the number below 1024 (fdc_fmt_bytes)."""
    units = ("B", "KiB", "MiB", "GiB", "TiB")
    b = float(b or 0)
    u = 0
    while b >= 1024.0 and u < 4:
        b /= 1024.0
        u += 1
    return ("%.1f %s" if u else "%.0f %s") % (b, units[u])


def fmt_gib(b):
    """Device memory, always in GiB: "79.6 GiB" (fdc_fmt_gib)."""
    return "%.1f GiB" % (float(b) / (1024.0 ** 3))


def fmt_dims(m):
    """A model's samples: "20x30x40" (the geometry a SEG-Y records), "4096 values", or
    "-" when nothing is recorded."""
    d, n = m.get("dims"), m.get("nvalues")
    if isinstance(d, list) and len(d) == 3:
        return "%dx%dx%d" % tuple(int(x) for x in d)
    if isinstance(n, int) and not isinstance(n, bool):
        return "%d values" % n
    return "-"


def fmt_range(m):
    """A model's velocity range: "1500-4500 m/s", or "-"."""
    lo, hi = m.get("vmin"), m.get("vmax")
    if isinstance(lo, (int, float)) and isinstance(hi, (int, float)):
        return "%.6g-%.6g m/s" % (lo, hi)
    return "-"


def print_table(rows, align):
    """Rows of text cells as a table whose columns line up (fdc_table_print): each column
    as wide as its widest cell, two spaces apart, align[i] 'r' right-aligning column i, the
    last column not padded."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        cells = []
        for i, cell in enumerate(r):
            last = i == len(r) - 1
            if align[i] == "r":
                cells.append(cell.rjust(widths[i]))
            else:
                cells.append(cell if last else cell.ljust(widths[i]))
        print("  ".join(cells))
