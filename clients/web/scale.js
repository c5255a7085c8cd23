/* scale.js — the symmetric colour scale the page draws wavefields with: the engine's
 * blue-white-red map (engine/output/png_io.c: 0 white, +clip and above pure red, -clip
 * and below pure blue, linear between, non-finite black), the clip values the user can
 * choose (the largest |value|, or a percentile of |value|), and how numbers on a scale
 * are written. Pure functions: no page state. */

/* RGB of value v on the scale ±clip. */
export function colour(v, clip) {
  if (!Number.isFinite(v)) return [0, 0, 0];
  if (!(clip > 0)) return [128, 128, 128];
  const t = Math.max(-1, Math.min(1, v / clip));
  const fade = Math.round(255 * (1 - Math.abs(t)));
  return t >= 0 ? [255, fade, fade] : [fade, fade, 255];
}

/* The largest finite |value| (0 when there is none). */
export function maxAbs(data) {
  let m = 0;
  for (let i = 0; i < data.length; i++) {
    const a = Math.abs(data[i]);
    if (a > m && a !== Infinity) m = a;
  }
  return m;
}

/* The p-th percentile (0 < p <= 100) of the finite |values| of one or more arrays: the
 * value below which p% of them lie (nearest rank). 0 when there is none. */
export function percentileAbs(arrays, p) {
  let n = 0;
  for (const a of arrays) n += a.length;
  const mags = new Float32Array(n);
  let k = 0;
  for (const a of arrays)
    for (let i = 0; i < a.length; i++) {
      const v = Math.abs(a[i]);
      if (Number.isFinite(v)) mags[k++] = v;
    }
  if (k === 0) return 0;
  const sorted = mags.subarray(0, k).sort();
  const rank = Math.min(k, Math.max(1, Math.ceil((p / 100) * k)));
  return sorted[rank - 1];
}

/* Paints data (w fastest, h rows; row 0 on top) into a new ImageData on the scale ±clip. */
export function toImage(ctx, data, w, h, clip) {
  const img = ctx.createImageData(w, h);
  for (let i = 0; i < w * h; i++) {
    const [r, g, b] = colour(data[i], clip);
    img.data[4 * i] = r;
    img.data[4 * i + 1] = g;
    img.data[4 * i + 2] = b;
    img.data[4 * i + 3] = 255;
  }
  return img;
}

/* A value on a scale, in three significant digits: "0.0123", "4.56e-5", "1.20e+3". */
export function fmtValue(v) {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e-2 && a < 1e4) return String(Number(v.toPrecision(3)));
  return v.toExponential(2);
}

/* Tick positions for an axis from lo to hi: about n "nice" values (1, 2 or 5 times a
 * power of ten apart) within [lo, hi]. */
export function niceTicks(lo, hi, n) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / Math.max(1, n);
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) || 10 * p;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
    out.push(Math.abs(v) < step * 1e-9 ? 0 : Number(v.toPrecision(12)));
  return out;
}
