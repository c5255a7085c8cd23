/* snapshots.js — the snapshots of the job page. Each snapshot event lists its files; the
 * job's manifest (GET /v1/jobs/ID/outputs, rewritten after every snapshot) gives their
 * dims and max_abs. A slice with a raw float32 file is drawn on a canvas on the scale the
 * user chose for the job: fixed for the whole job (the largest |value| of all its
 * snapshots so far: the default, so that late residue looks as weak as it is), per
 * snapshot, or a clip percentile of the snapshot's |values|; the colour bar shows the
 * values. A slider steps through the snapshots (it follows the newest while it sits at the
 * end). Slices with only a PNG (snapshots.raw false) are shown as the engine drew them,
 * each scaled to its own maximum, and the page says so. An imaging job's image slices (a
 * survey's partial stack after each shot, then the final image: imageslice.js) are drawn
 * with axes in metres, each on a colour bar of its own (± its largest |value|, or the
 * chosen percentile), the newest stack replacing the last. */
import { api, withToken } from './api.js';
import { maxAbs, percentileAbs, toImage, fmtValue } from './scale.js';
import { scaleControl } from './scalebar.js';
import { imageSlice, surveyShots, stackCaption, sliceFigure } from './imageslice.js';

export const SNAPSHOT_MODES = [
  ['job', 'fixed for the whole job'],
  ['snapshot', 'per snapshot'],
  ['percentile', 'clip percentile'],
];

const stem = (name) => name.replace(/\.[^.]*$/, '');

export class SnapshotView {
  /* els: {box, control, slider, caption}; prefs: {mode, pct}, saved by onPrefs. */
  constructor(els, prefs, onPrefs) {
    this.els = els;
    this.events = [];        // snapshot events in order
    this.entries = new Map(); // manifest entries by file name
    this.cache = new Map();   // raw data by file name (the last few)
    this.finished = false;
    this.spec = null;         // the job's spec (its grid and survey)
    this.survey = null;       // the manifest's survey
    this.finalAdded = false;  // the final image slices are the last "snapshot"
    this.gen = 0;
    this.follow = true;
    this.scale = scaleControl(els.control, {
      modes: SNAPSHOT_MODES, state: prefs, onChange: () => { onPrefs(); this.render(); },
    });
    this.scale.note('no snapshot yet');
    // A property, not addEventListener: the next job's view takes the slider over.
    els.slider.oninput = () => {
      this.follow = Number(els.slider.value) === this.events.length - 1;
      this.render();
    };
  }

  /* The page moved on: nothing is drawn any more. */
  close() {
    this.closed = true;
  }

  /* A snapshot event's data: {index, step, time, files: [{name, url, format}]}. */
  add(ev) {
    this.events.push(ev);
    const s = this.els.slider;
    s.max = String(this.events.length - 1);
    s.hidden = this.events.length < 2;
    if (this.follow) s.value = s.max;
  }

  /* The job (GET /v1/jobs/ID): its spec gives the image slices' axes and shot count. */
  setJob(job) {
    this.spec = (job && job.spec) || null;
  }

  /* The manifest's files (as GET /v1/jobs/ID/outputs lists them) and survey; finished: the
   * job has ended, so the job's scale is final, and its final image slices (if any) are
   * shown after the partial stacks. */
  setManifest(files, finished, survey) {
    for (const f of files || []) this.entries.set(f.name, f);
    this.finished = !!finished;
    if (survey) this.survey = survey;
    if (this.finished && !this.finalAdded) {
      const final = (files || []).filter((f) => f.kind === 'image' && f.url &&
        (f.format === 'png' || f.format === 'raw-f32') && (f.dims || []).length === 2 &&
        imageSlice(stem(f.name)));
      if (final.length) {
        this.finalAdded = true;
        this.add({ index: this.events.length, final: true,
                   files: final.map((f) => ({ name: f.name, url: f.url, format: f.format })) });
      }
    }
    if (this.finished && !this.events.length) {
      this.scale.note('this job wrote no snapshots');
      this.els.box.innerHTML = '<p class="muted">none</p>';
    }
  }

  /* The largest |value| of a file: the manifest's max_abs, else from its data. */
  maxOf(name, data) {
    const e = this.entries.get(name);
    if (e && typeof e.max_abs === 'number') return e.max_abs;
    if (!data) return null;
    const m = maxAbs(data);
    if (e) e.max_abs = m;
    return m;
  }

  async data(file) {
    if (this.cache.has(file.name)) return this.cache.get(file.name);
    const resp = await api('GET', file.url, { json: false });
    const d = new Float32Array(await resp.arrayBuffer());
    this.cache.set(file.name, d);
    while (this.cache.size > 16) this.cache.delete(this.cache.keys().next().value);
    return d;
  }

  async render() {
    const gen = ++this.gen;
    const ev = this.events[Number(this.els.slider.value)] || this.events[this.events.length - 1];
    if (!ev) return;
    const files = ev.files || [];
    // One figure per slice: its raw file if the manifest knows its 2-D dims, else its PNG.
    const slices = new Map();
    for (const f of files) {
      const s = slices.get(stem(f.name)) || {};
      const e = this.entries.get(f.name);
      if (f.format === 'raw-f32' && e && (e.dims || []).length === 2) s.raw = Object.assign({}, f, e);
      else if (f.format === 'png') s.png = f;
      slices.set(stem(f.name), s);
    }
    const raws = [...slices.values()].filter((s) => s.raw).map((s) => s.raw);
    // The snapshot scale is of the wavefield slices; image slices have their own.
    const images = new Map();
    for (const name of slices.keys()) {
      const sl = imageSlice(name);
      if (sl) images.set(name, sl);
    }
    const fields = [...slices].filter(([n, s]) => s.raw && !images.has(n)).map(([, s]) => s.raw);
    let datas;
    try {
      datas = await Promise.all(raws.map((f) => this.data(f)));
    } catch (e) {
      if (gen === this.gen && !this.closed)
        this.els.caption.textContent = 'cannot load the snapshot: ' + e.message;
      return;
    }
    if (gen !== this.gen || this.closed) return;
    const st = this.els.control;
    const mode = st.querySelector('.scale-mode').value;
    const pct = Number(st.querySelector('.scale-pct').value);
    const dataOf = (f) => datas[raws.indexOf(f)];
    let clip = 0, why = '';
    if (fields.length) {
      if (mode === 'percentile') {
        const p = pct;
        clip = percentileAbs(fields.map(dataOf), p);
        why = `the ${p}th percentile of |value| in snapshot ${ev.index}; larger values are clipped`;
      } else if (mode === 'snapshot') {
        clip = Math.max(...fields.map((f) => this.maxOf(f.name, dataOf(f))));
        why = `the largest |value| of snapshot ${ev.index}`;
      } else {
        const known = [...this.entries.values()].filter((e) => e.kind === 'snapshot' &&
          e.format === 'raw-f32' && !imageSlice(stem(e.name)));
        fields.forEach((f) => this.maxOf(f.name, dataOf(f)));
        clip = Math.max(0, ...known.map((e) => (typeof e.max_abs === 'number' ? e.max_abs : 0)));
        const steps = new Set(known.map((e) => e.step));
        why = `fixed for the job: the largest |value| of ${this.finished ? 'all ' : ''}` +
          `${steps.size} snapshot${steps.size === 1 ? '' : 's'}` +
          (this.finished ? '' : ' so far');
      }
      this.scale.show(clip, why);
    } else if (images.size) {
      this.scale.note(mode === 'percentile'
        ? `image slices: each clipped at the ${pct}th percentile of its |values|`
        : 'image slices: each on its own scale, ± its largest |value|');
    } else {
      const pngMax = [...slices.values()].map((s) => s.png && this.entries.get(s.png.name))
        .filter((e) => e && typeof e.max_abs === 'number').map((e) => e.max_abs);
      this.scale.note('PNG images, each scaled to its own largest |value|' +
        (pngMax.length ? ` (±${fmtValue(Math.max(...pngMax))} here)` : '') +
        ': with snapshots.raw the page can put every snapshot on one scale');
    }
    const box = this.els.box;
    box.textContent = '';
    const grid = (this.spec && this.spec.grid) || null;
    const nshots = surveyShots(this.survey, this.spec);
    let stacked = null;
    for (const [name, s] of slices) {
      const sl = images.get(name);
      if (sl) {
        const data = s.raw ? dataOf(s.raw) : null;
        const png = s.png && Object.assign({}, this.entries.get(s.png.name), s.png,
                                           { src: withToken(s.png.url) });
        const entry = s.raw || this.entries.get(name + '.f32');
        if (sl.shots !== null && entry && typeof entry.shots === 'number') sl.shots = entry.shots;
        let clip = null, why = '';
        if (data && mode === 'percentile') {
          clip = percentileAbs([data], pct);
          why = `± the ${pct}th percentile of its |values|; larger values are clipped`;
        } else if (data || (entry && typeof entry.max_abs === 'number')) {
          clip = data ? this.maxOf(s.raw.name, data) : entry.max_abs;
          why = '± its largest |value|';
        }
        box.appendChild(sliceFigure({ slice: sl, stem: name, raw: s.raw || null,
                                      png: png || null, data, clip, why, grid, nshots }));
        stacked = stacked || sl;
        continue;
      }
      const fig = document.createElement('figure');
      const cap = document.createElement('figcaption');
      if (s.raw) {
        const [w, h] = s.raw.dims;
        const data = datas[raws.indexOf(s.raw)];
        const cv = document.createElement('canvas');
        cv.width = w;
        cv.height = h;
        cv.dataset.name = s.raw.name;
        cv.dataset.clip = String(clip);
        if (data.length === w * h) {
          const ctx = cv.getContext('2d');
          ctx.putImageData(toImage(ctx, data, w, h, clip), 0, 0);
          cap.textContent = `${name} (${w} × ${h})`;
        } else {
          cap.textContent = `${s.raw.name}: ${data.length} values do not match dims ${w} × ${h}`;
        }
        fig.appendChild(cv);
      } else if (s.png) {
        const img = document.createElement('img');
        img.alt = s.png.name;
        img.src = withToken(s.png.url); // an <img> cannot send the token header
        fig.appendChild(img);
        cap.textContent = s.png.name;
      } else {
        continue; // a volume: listed with the outputs
      }
      fig.appendChild(cap);
      box.appendChild(fig);
    }
    const pos = this.events.indexOf(ev) + 1;
    this.els.caption.textContent = stacked
      ? `${stackCaption(stacked, nshots)} (${pos} of ${this.events.length})`
      : `#${ev.index} (${pos} of ${this.events.length}), ` +
        `step ${ev.step}, t = ${Number(ev.time).toFixed(3)} s`;
    box.dataset.shown = String(ev.index);
    box.dataset.mode = raws.length ? mode : 'png';
    box.dataset.image = stacked ? stackCaption(stacked, nshots) : '';
  }
}
