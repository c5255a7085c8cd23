/* convergence.js — a sweep job's part of the job page: its convergence, plotted sweep by
 * sweep as the progress events arrive (their "change": the largest change of a known time
 * in the last sweep; "changed": how many times changed) and, once the job has ended, from
 * the manifest's "convergence" record (every sweep, with the points computed); and its
 * slice images with isochrons (the manifest's files of kind "slice"). Hidden for other
 * kinds. */
import { withToken } from './api.js';
import { drawAxes } from './axes.js';

const NS = 'http://www.w3.org/2000/svg';
const AREA = { x: 64, y: 16, w: 400, h: 170 };

function el(name, attrs) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

export class ConvergenceView {
  /* parts: {box (shown for sweep jobs), svg, caption, table, slices} */
  constructor(parts) {
    this.p = parts;
    this.points = new Map(); // sweep -> {change, changed, computed}
    this.final = null;       // the manifest's record once the job has ended
    this.p.box.hidden = true;
    this.p.svg.textContent = '';
    this.p.table.textContent = '';
    this.p.slices.textContent = '';
    this.p.caption.textContent = '';
  }

  /* A progress event: a sweep job's carries change and changed. */
  progress(d) {
    if (typeof d.change !== 'number' || this.final) return;
    this.points.set(Number(d.step), { change: d.change, changed: d.changed });
    this.draw();
  }

  /* The manifest (GET /v1/jobs/ID/outputs) of an ended job. */
  fromManifest(m) {
    const c = m && m.convergence;
    if (!c || !Array.isArray(c.per_sweep)) return;
    this.final = c;
    this.points = new Map(c.per_sweep.map((s) => [s.sweep, {
      change: s.max_change, changed: s.changed, reached: s.reached, computed: s.computed }]));
    this.draw();
    this.showSlices(m.files || []);
  }

  /* The largest change per sweep on a log scale (sweeps that changed nothing at the
   * bottom, marked "none"), the number of changed times in the table. */
  draw() {
    const pts = [...this.points.entries()].sort((a, b) => a[0] - b[0]);
    if (!pts.length) return;
    this.p.box.hidden = false;
    const pos = pts.map(([, v]) => v.change).filter((c) => c > 0);
    const hi = Math.ceil(Math.log10(Math.max(...pos, 1e-15)));
    const lo = Math.min(Math.floor(Math.log10(Math.min(...pos, 10 ** hi))), hi - 1);
    const floor = lo - 1; // where "no change" is drawn
    const n = pts[pts.length - 1][0];
    const xAt = (s) => (n > 1 ? ((s - 1) / (n - 1)) * AREA.w : AREA.w / 2);
    const yAt = (c) => {
      const e = c > 0 ? Math.log10(c) : floor;
      return AREA.h - ((e - floor) / (hi - floor)) * AREA.h;
    };
    const yticks = [];
    const step = Math.max(1, Math.ceil((hi - floor) / 6));
    for (let e = hi; e >= floor; e -= step)
      yticks.push({ at: yAt(e === floor ? 0 : 10 ** e), label: e === floor ? 'none' : `1e${e}` });
    const xticks = [];
    const xs = Math.max(1, Math.ceil(n / 10));
    for (let s = 1; s <= n; s += xs) xticks.push({ at: xAt(s), label: String(s) });
    drawAxes(this.p.svg, AREA, {
      left: { title: 'largest change', ticks: yticks },
      bottom: { title: 'sweep', ticks: xticks },
    });
    const line = el('polyline', { class: 'conv-line', fill: 'none',
      points: pts.map(([s, v]) => `${AREA.x + xAt(s)},${AREA.y + yAt(v.change)}`).join(' ') });
    this.p.svg.appendChild(line);
    for (const [s, v] of pts)
      this.p.svg.appendChild(el('circle', { class: 'conv-point', r: 3, 'data-sweep': s,
        cx: AREA.x + xAt(s), cy: AREA.y + yAt(v.change) }));
    this.table(pts);
    const c = this.final;
    this.p.caption.textContent = !c ? `sweep ${n} (running)`
      : c.converged ? `converged after ${c.sweeps} sweeps`
      : c.auto ? `stopped at ${c.sweeps} sweeps without converging` : `${c.sweeps} sweeps`;
  }

  table(pts) {
    const t = this.p.table;
    t.textContent = '';
    const head = t.insertRow();
    for (const h of ['sweep', 'largest change', 'times changed', 'reached', 'points computed'])
      head.insertCell().textContent = h;
    for (const [s, v] of pts) {
      const r = t.insertRow();
      r.dataset.sweep = s;
      r.insertCell().textContent = String(s);
      r.insertCell().textContent = v.change > 0 ? v.change.toExponential(3) : '0';
      r.insertCell().textContent = String(v.changed ?? '');
      r.insertCell().textContent = v.reached === undefined ? '' : String(v.reached);
      r.insertCell().textContent = v.computed === undefined ? '' : String(v.computed);
    }
  }

  showSlices(files) {
    const box = this.p.slices;
    box.textContent = '';
    for (const f of files.filter((x) => x.kind === 'slice' && x.format === 'png')) {
      const fig = document.createElement('figure');
      const img = document.createElement('img');
      img.alt = f.name;
      img.src = withToken(f.url);
      const cap = document.createElement('figcaption');
      cap.textContent = `${f.name}: ${f.description || ''}`;
      fig.append(img, cap);
      box.appendChild(fig);
    }
  }
}
