/* gather.js — the receiver gather of a finished job: time (s) down the left axis,
 * receivers across the bottom and their source-receiver offsets (m) across the top, as an
 * image on the symmetric colour scale or as wiggles (variable area), with the same scale
 * control as the snapshots (the gather's largest |amplitude|, or a clip percentile). The
 * data and the receivers' positions come from gather.segy (its trace headers); without
 * it, from gather.f32, with receivers numbered. The sample interval is the manifest's
 * sample_interval when it has one. A survey has one gather per shot: a chooser lists them
 * (shot number and source position) and draws the one picked. */
import { api } from './api.js';
import { maxAbs, percentileAbs, toImage, niceTicks } from './scale.js';
import { scaleControl } from './scalebar.js';
import { drawAxes } from './axes.js';
import { readSegy, signedOffsets } from './segy.js';

export const GATHER_MODES = [
  ['max', 'fixed: largest |amplitude|'],
  ['percentile', 'clip percentile'],
];

const W = 640, H = 360;                          // plot area, CSS pixels
const MARGIN = { l: 64, t: 48, r: 14, b: 46 };

export class GatherView {
  /* els: {plot, canvas, svg, control, style, caption, pick: {label, select}}; prefs:
   * {mode, pct, style}. */
  constructor(els, prefs, onPrefs) {
    this.els = els;
    this.prefs = prefs;
    this.g = null;
    this.scale = scaleControl(els.control, {
      modes: GATHER_MODES, state: prefs, onChange: () => { onPrefs(); this.render(); },
    });
    this.scale.note('');
    els.style.value = prefs.style === 'wiggle' ? 'wiggle' : 'image';
    // A property, not addEventListener: the next job's view takes the select over.
    els.style.onchange = () => {
      prefs.style = els.style.value;
      onPrefs();
      this.render();
    };
  }

  /* The page moved on: nothing is drawn any more. */
  close() {
    this.closed = true;
  }

  /* Lists the manifest's gathers in the chooser (one entry per gather: its SEG-Y, else
   * its raw file; a survey's all_shots left out) and draws the first; false when the job
   * has none. */
  async load(files) {
    const byBase = new Map();
    for (const f of files) {
      if (f.kind !== 'gather' || (f.format !== 'segy' && f.format !== 'raw-f32')) continue;
      const base = f.name.replace(/\.[^.]*$/, '');
      if (base === 'all_shots') continue;
      const had = byBase.get(base);
      if (!had || (f.format === 'segy' && had.format !== 'segy')) byBase.set(base, f);
    }
    this.files = [...byBase.values()];
    const pick = this.els.pick;
    if (pick) {
      pick.select.textContent = '';
      this.files.forEach((f, i) => {
        const o = document.createElement('option');
        o.value = String(i);
        o.textContent = typeof f.shot === 'number'
          ? `shot ${f.shot} (source ${f.source_x}, ${f.source_y}, ${f.source_z} m)` : f.name;
        pick.select.appendChild(o);
      });
      pick.label.hidden = this.files.length < 2;
      pick.select.onchange = () => {
        this.show(this.files[Number(pick.select.value)]).catch((e) => {
          this.els.caption.textContent = 'cannot draw the gather: ' + e.message;
        });
      };
    }
    if (!this.files.length) return false;
    await this.show(this.files[0]);
    return true;
  }

  /* Fetches and draws one gather file of the manifest (the last one asked for, when the
   * user picks another before the first has arrived). */
  async show(file) {
    const seq = (this.seq = (this.seq || 0) + 1);
    const segy = file.format === 'segy' ? file : null;
    const buf = await (await api('GET', file.url, { json: false })).arrayBuffer();
    if (this.closed || seq !== this.seq) return;
    const dt = typeof file.sample_interval === 'number' ? file.sample_interval : null;
    if (file === segy) {
      const s = readSegy(buf);
      this.g = { name: file.name, ns: s.ns, nrec: s.ntraces, data: s.data, dt: dt || s.dt,
                 offsets: signedOffsets(s.receivers, s.sources) };
    } else {
      const [ns, nrec] = file.dims || [];
      if (!ns || buf.byteLength !== ns * (nrec || 1) * 4)
        throw new Error(`${file.name}: ${buf.byteLength} bytes do not match dims ${file.dims}`);
      this.g = { name: file.name, ns, nrec: nrec || 1, data: new Float32Array(buf), dt,
                 offsets: null };
    }
    this.render();
  }

  render() {
    const g = this.g;
    if (!g || this.closed) return;
    const { canvas, svg, plot, caption } = this.els;
    const mode = this.els.control.querySelector('.scale-mode').value;
    const pct = Number(this.els.control.querySelector('.scale-pct').value);
    const clip = mode === 'percentile' ? percentileAbs([g.data], pct) : maxAbs(g.data);
    const style = this.els.style.value;
    const why = mode === 'percentile'
      ? `the ${pct}th percentile of |amplitude|; larger values are clipped`
      : 'the largest |amplitude| of the gather';
    this.scale.show(clip, style === 'wiggle' ? `${why}; one trace spacing` : why,
                    style !== 'wiggle');

    plot.style.width = MARGIN.l + W + MARGIN.r + 'px';
    plot.style.height = MARGIN.t + H + MARGIN.b + 'px';
    svg.setAttribute('width', MARGIN.l + W + MARGIN.r);
    svg.setAttribute('height', MARGIN.t + H + MARGIN.b);
    Object.assign(canvas.style, { left: MARGIN.l + 'px', top: MARGIN.t + 'px',
                                  width: W + 'px', height: H + 'px' });
    if (style === 'wiggle') this.wiggles(g, clip);
    else this.image(g, clip);

    // Axes: sample s is drawn over [s, s+1) of ns rows, receiver r over [r, r+1) of nrec.
    const at = (i, n, size) => ((i + 0.5) / n) * size;
    const left = g.dt
      ? { title: 'time (s)', ticks: niceTicks(0, (g.ns - 1) * g.dt, 6).map((t) => (
        { at: at(t / g.dt, g.ns, H), label: String(Number(t.toPrecision(6))) })) }
      : { title: 'sample', ticks: niceTicks(0, g.ns - 1, 6).map((s) => (
        { at: at(s, g.ns, H), label: String(s) })) };
    const which = niceTicks(1, g.nrec, Math.min(8, g.nrec)).filter((k) => Number.isInteger(k));
    const sides = {
      left,
      bottom: { title: 'receiver', ticks: which.map((k) => (
        { at: at(k - 1, g.nrec, W), label: String(k) })) },
    };
    if (g.offsets)
      sides.top = { title: 'offset (m)', ticks: which.map((k) => (
        { at: at(k - 1, g.nrec, W), label: String(Math.round(g.offsets[k - 1])) })) };
    drawAxes(svg, { x: MARGIN.l, y: MARGIN.t, w: W, h: H }, sides);

    canvas.hidden = false;
    canvas.dataset.drawn = '1';
    canvas.dataset.style = style;
    caption.textContent = `${g.name}: ${g.nrec} receivers × ${g.ns} samples` +
      (g.dt ? ` every ${Number(g.dt.toPrecision(4))} s (sample 0 is t = 0)` : '') +
      (g.offsets ? '; positions from the SEG-Y trace headers, offsets signed along the ' +
        'receiver order' : '');
  }

  /* Receivers across, time down, one canvas pixel per sample, scaled up unsmoothed. */
  image(g, clip) {
    const cv = this.els.canvas;
    cv.width = g.nrec;
    cv.height = g.ns;
    cv.style.imageRendering = 'pixelated';
    const ctx = cv.getContext('2d');
    const across = new Float32Array(g.nrec * g.ns); // time rows, receivers across
    for (let r = 0; r < g.nrec; r++)
      for (let s = 0; s < g.ns; s++) across[s * g.nrec + r] = g.data[r * g.ns + s];
    ctx.putImageData(toImage(ctx, across, g.nrec, g.ns, clip), 0, 0);
  }

  /* One trace every spacing pixels; ±clip is one spacing; positive lobes filled. Traces
   * are thinned to one every few when there are more than a third as many as pixels. */
  wiggles(g, clip) {
    const cv = this.els.canvas;
    const dpr = window.devicePixelRatio || 1;
    cv.width = Math.round(W * dpr);
    cv.height = Math.round(H * dpr);
    cv.style.imageRendering = 'auto';
    const ctx = cv.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, W, H);
    const every = Math.max(1, Math.ceil(g.nrec / (W / 3)));
    const spacing = (W / g.nrec) * every;
    const y = (s) => ((s + 0.5) / g.ns) * H;
    ctx.lineWidth = 0.8;
    ctx.strokeStyle = '#111';
    ctx.fillStyle = '#111';
    for (let r = 0; r < g.nrec; r += every) {
      const x0 = ((r + 0.5) / g.nrec) * W;
      const a = (s) => {
        const v = clip > 0 ? g.data[r * g.ns + s] / clip : 0;
        return Number.isFinite(v) ? Math.max(-1, Math.min(1, v)) * spacing : 0;
      };
      ctx.beginPath();
      ctx.moveTo(x0, y(0));
      for (let s = 0; s < g.ns; s++) ctx.lineTo(x0 + Math.max(0, a(s)), y(s));
      ctx.lineTo(x0, y(g.ns - 1));
      ctx.closePath();
      ctx.fill();
      ctx.beginPath();
      for (let s = 0; s < g.ns; s++) {
        if (s === 0) ctx.moveTo(x0 + a(s), y(s));
        else ctx.lineTo(x0 + a(s), y(s));
      }
      ctx.stroke();
    }
  }
}
