/* imageslice.js — an imaging job's image slices (rtm, gradient; docs/imaging.md, Surveys) as
 * figures of the snapshot view: the middle xz or yz plane of a survey's partial stack
 * (stack_<volume>_NNNN_xz_jJ, announced after each shot is added) or of the final volume
 * (<volume>_xz_jJ, in the manifest), drawn from its raw float32 [z][across] on the engine's
 * blue-white-red map (or, without one, its PNG) with axes in metres from the job's grid
 * (across: x or y from the origin and spacing; down: depth z), a colour bar of its own
 * symmetric about 0 with its values and units, and a caption "stack of N of M shots" or
 * "final image". */
import { toImage, niceTicks } from './scale.js';
import { colourBar } from './scalebar.js';
import { drawAxes } from './axes.js';

const PARTIAL = /^stack_([a-z]+)_(\d+)_(xz|yz)_([ij])(\d+)$/;
const FINAL = /^([a-z]+)_(xz|yz)_([ij])(\d+)$/;

const MAX_W = 420, MAX_H = 300;                  // plot area at most, CSS pixels
const MARGIN = { l: 64, t: 10, r: 16, b: 46 };

/* What a file's stem (its name without the extension) names: {volume, plane, index,
 * shots} (shots: a partial stack's count, null for a final volume's), or null when it is
 * not an image slice (an acoustic snapshot "snap_000040_xz_j12" is not). */
export function imageSlice(stem) {
  let m = PARTIAL.exec(stem);
  if (m) return { volume: m[1], shots: Number(m[2]), plane: m[3], index: Number(m[5]) };
  m = FINAL.exec(stem);
  if (m) return { volume: m[1], shots: null, plane: m[2], index: Number(m[4]) };
  return null;
}

/* The survey's shot count: the manifest's survey.nshots, else the spec's survey. */
export function surveyShots(survey, spec) {
  if (survey && typeof survey.nshots === 'number') return survey.nshots;
  const sv = spec && spec.survey;
  if (!sv) return null;
  if (Array.isArray(sv.shots)) return sv.shots.length;
  if (sv.generate && typeof sv.generate.count === 'number') return sv.generate.count;
  return null;
}

/* "stack of 3 of 12 shots", or "final image" (final gradient, ...). */
export function stackCaption(slice, nshots) {
  if (slice.shots === null) return `final ${slice.volume}`;
  return `stack of ${slice.shots} of ${nshots === null ? '?' : nshots} shots`;
}

/* One axis along n nodes from lo, h apart: {title, ticks} for a side size pixels long (node
 * q drawn over [q, q+1) of n). */
function axis(title, lo, h, n, size) {
  const ticks = niceTicks(lo, lo + (n - 1) * h, 6).map((v) => (
    { at: (((v - lo) / h + 0.5) / n) * size, label: String(Number(v.toPrecision(8))) }));
  return { title, ticks };
}

/* The figure of one image slice. s: {slice (imageSlice's), stem, raw (the float32 file's
 * manifest entry, or null), png (its PNG's event file, or null), data (the float32
 * values, or null), clip, why (what the clip is), grid (the spec's), nshots}. */
export function sliceFigure(s) {
  const { slice, raw, png, data, clip, grid } = s;
  const dims = (raw && raw.dims) || (png && png.dims) || [];
  const [w, nz] = dims;
  const fig = document.createElement('figure');
  fig.className = 'image-slice';
  fig.dataset.name = raw ? raw.name : png.name;
  fig.dataset.volume = slice.volume;
  fig.dataset.plane = slice.plane;
  fig.dataset.shots = slice.shots === null ? 'final' : String(slice.shots);
  const cap = document.createElement('figcaption');
  const stack = document.createElement('span');
  stack.className = 'image-stack';
  stack.textContent = stackCaption(slice, s.nshots);
  cap.appendChild(stack);

  // Metres from the grid when the spec has one, else node numbers.
  const xz = slice.plane === 'xz';
  const g = grid && grid.dx > 0 && grid.dz > 0 ? grid : null;
  const o = (g && g.origin) || [0, 0, 0];
  const h = g ? (xz ? g.dx : g.dy) : 1, dz = g ? g.dz : 1;
  const across = xz ? 'x' : 'y', at = xz ? 'y' : 'x';
  const where = g ? `${at} = ${Number(((xz ? o[1] : o[0]) + slice.index * (xz ? g.dy : g.dx))
    .toPrecision(8))} m (${xz ? 'j' : 'i'} = ${slice.index})`
    : `${xz ? 'j' : 'i'} = ${slice.index}`;
  cap.appendChild(document.createTextNode(` · ${slice.volume}, ${slice.plane} plane at ${where}`));

  if (!(w > 0 && nz > 0)) {
    cap.appendChild(document.createTextNode(': no dims in the manifest yet'));
    fig.appendChild(cap);
    return fig;
  }
  // The plot keeps the slice's true aspect (metres across : metres down).
  const k = Math.min(MAX_W / (w * h), MAX_H / (nz * dz));
  const W = Math.max(40, Math.round(w * h * k)), H = Math.max(40, Math.round(nz * dz * k));
  const plot = document.createElement('div');
  plot.className = 'plot image-plot';
  plot.style.width = MARGIN.l + W + MARGIN.r + 'px';
  plot.style.height = MARGIN.t + H + MARGIN.b + 'px';
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('class', 'axes');
  svg.setAttribute('width', MARGIN.l + W + MARGIN.r);
  svg.setAttribute('height', MARGIN.t + H + MARGIN.b);
  const place = { left: MARGIN.l + 'px', top: MARGIN.t + 'px', width: W + 'px',
                  height: H + 'px' };
  let pic;
  if (data && data.length === w * nz) {
    pic = document.createElement('canvas');
    pic.width = w;
    pic.height = nz;
    const ctx = pic.getContext('2d');
    ctx.putImageData(toImage(ctx, data, w, nz, clip), 0, 0);
    pic.dataset.clip = String(clip);
  } else if (png) {
    pic = document.createElement('img'); // the engine's PNG, scaled to its own largest |value|
    pic.alt = png.name;
    pic.src = png.src;
  } else {
    cap.appendChild(document.createTextNode(
      `: ${data ? data.length : 0} values do not match dims ${w} × ${nz}`));
    fig.appendChild(cap);
    return fig;
  }
  pic.className = 'image-pic';
  Object.assign(pic.style, place);
  plot.append(svg, pic);
  drawAxes(svg, { x: MARGIN.l, y: MARGIN.t, w: W, h: H }, {
    left: axis(g ? 'depth z (m)' : 'k', g ? o[2] : 0, dz, nz, H),
    bottom: axis(g ? `${across} (m)` : (xz ? 'i' : 'j'), g ? (xz ? o[0] : o[1]) : 0, h, w, W),
  });

  const scale = document.createElement('div');
  scale.className = 'image-scale';
  const units = document.createElement('span');
  units.className = 'image-units muted';
  if (clip > 0) {
    const cb = colourBar();
    cb.set(clip);
    cb.el.style.width = Math.min(W, 256) + 'px';
    scale.appendChild(cb.el);
    units.textContent = `${slice.volume}` + (raw && raw.units ? ` (${raw.units})` : '') +
      `: ${s.why}`;
  } else {
    units.textContent = clip === 0 ? `${slice.volume}: all zero`
      : `${slice.volume}: the engine's PNG, scaled to its own largest |value|`;
  }
  scale.appendChild(units);
  fig.append(plot, scale, cap);
  return fig;
}
