/* submit.js — the submit form (#/submit): a text box pre-filled with a small example job,
 * a priority, and the server's verdict on a bad spec shown with its field path. */
import { api, showError, $ } from './api.js';

/* A small job that finishes in seconds on the CPU backend: the submit form starts here. */
const EXAMPLE_SPEC = {
  kind: 'acoustic',
  name: 'web example: point source in a two-layer medium',
  grid: { nx: 64, ny: 64, nz: 64, dx: 10, dy: 10, dz: 10 },
  order: 8,
  velocity: { type: 'layered', layers: [{ top: 0, v: 1800 }, { top: 400, v: 2600 }] },
  time: { nt: 300, dt: 'auto' },
  sources: [{ position: [320, 320, 200], wavelet: { type: 'ricker', f0: 12 } }],
  receivers: { lines: [{ from: [140, 320, 150], to: [490, 320, 150], count: 36 }], interval: 1 },
  boundary: { type: 'sponge', width: 12, free_surface: false },
  snapshots: { every: 75, slices: [{ plane: 'xz', index: 32 }, { plane: 'xy', index: 20 }],
               png: true, raw: true },
  devices: 1,
};

export function showSubmit() {
  $('view-submit').hidden = false;
  if (!$('submit-spec').value.trim())
    $('submit-spec').value = JSON.stringify(EXAMPLE_SPEC, null, 2);
}

async function submitJob(ev) {
  ev.preventDefault();
  const errEl = $('submit-error');
  errEl.hidden = true;
  const prio = parseInt($('submit-priority').value || '0', 10);
  const path = '/v1/jobs' + (prio ? '?priority=' + prio : '');
  $('submit-button').disabled = true;
  try {
    const r = await api('POST', path, {
      body: $('submit-spec').value,
      headers: { 'Content-Type': 'application/json' },
    });
    location.hash = '#/job/' + r.id;
  } catch (e) {
    showError(errEl, e);
  } finally {
    $('submit-button').disabled = false;
  }
}

export function initSubmit() {
  $('submit-form').addEventListener('submit', submitJob);
  $('submit-reset').addEventListener('click', () => {
    $('submit-spec').value = JSON.stringify(EXAMPLE_SPEC, null, 2);
  });
}
