/* scalebar.js — the scale control shown with a plot: a choice of how the clip is taken
 * (the plot gives its modes, e.g. fixed for the whole job, per snapshot, a percentile),
 * the percentile when that mode is chosen, and the colour bar with its values (-clip, 0,
 * +clip) and a caption saying what they were taken from; the colour bar alone (colourBar)
 * for plots with a scale of their own (imageslice.js). */
import { fmtValue, colour } from './scale.js';

/* A colour bar: the blue-white-red ramp from -clip (left) to +clip with those values and 0
 * under it. Returns {el, ramp (its canvas), set(clip)}. */
export function colourBar() {
  const bar = document.createElement('div');
  bar.className = 'scalebar';
  const ramp = document.createElement('canvas');
  ramp.className = 'scale-ramp';
  ramp.width = 256;
  ramp.height = 1;
  const ctx = ramp.getContext('2d');
  const img = ctx.createImageData(256, 1);
  for (let i = 0; i < 256; i++) {
    const [r, g, b] = colour((i - 127.5) / 127.5, 1);
    img.data.set([r, g, b, 255], 4 * i);
  }
  ctx.putImageData(img, 0, 0);
  const ticks = document.createElement('div');
  ticks.className = 'scale-ticks';
  const lo = document.createElement('span');
  lo.className = 'scale-min';
  const mid = document.createElement('span');
  mid.className = 'scale-mid';
  mid.textContent = '0';
  const hi = document.createElement('span');
  hi.className = 'scale-max';
  ticks.append(lo, mid, hi);
  bar.append(ramp, ticks);
  return {
    el: bar,
    ramp,
    set(clip) {
      hi.textContent = '+' + fmtValue(clip);
      lo.textContent = '\u2212' + fmtValue(clip);
    },
  };
}

/* Builds the control in root. modes: [[value, label], ...]; state: {mode, pct} (changed in
 * place); onChange(state) after the user changes it. Returns {show, note}. */
export function scaleControl(root, { modes, state, onChange }) {
  root.textContent = '';
  root.classList.add('scale');
  const modeLabel = document.createElement('label');
  modeLabel.textContent = 'Scale ';
  const select = document.createElement('select');
  select.className = 'scale-mode';
  for (const [value, label] of modes) {
    const o = document.createElement('option');
    o.value = value;
    o.textContent = label;
    select.appendChild(o);
  }
  if (!modes.some(([v]) => v === state.mode)) state.mode = modes[0][0];
  select.value = state.mode;
  modeLabel.appendChild(select);

  const pctLabel = document.createElement('label');
  pctLabel.className = 'scale-pct-box';
  pctLabel.textContent = 'percentile ';
  const pct = document.createElement('input');
  pct.type = 'number';
  pct.className = 'scale-pct';
  pct.min = '50';
  pct.max = '100';
  pct.step = '0.1';
  pct.value = String(state.pct);
  pctLabel.appendChild(pct);
  pctLabel.hidden = state.mode !== 'percentile';

  const cb = colourBar();

  const caption = document.createElement('span');
  caption.className = 'scale-caption muted';
  root.append(modeLabel, pctLabel, cb.el, caption);

  select.addEventListener('change', () => {
    state.mode = select.value;
    pctLabel.hidden = state.mode !== 'percentile';
    onChange(state);
  });
  pct.addEventListener('change', () => {
    const p = Number(pct.value);
    if (!(p > 0 && p <= 100)) {
      pct.value = String(state.pct);
      return;
    }
    state.pct = p;
    onChange(state);
  });

  return {
    /* The scale in use: ±clip, and what it was taken from; ramp false: the values
     * without the colour ramp (a wiggle plot). */
    show(clip, text, ramp = true) {
      cb.el.hidden = false;
      cb.ramp.hidden = !ramp;
      cb.set(clip);
      root.dataset.clip = String(clip);
      caption.textContent = text;
    },
    /* No scale to show (nothing drawn yet, or images scaled elsewhere): text says why. */
    note(text) {
      cb.el.hidden = true;
      delete root.dataset.clip;
      caption.textContent = text;
    },
  };
}
