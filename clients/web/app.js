/* app.js — the fdwave web page: hash routes #/ (job list), #/job/ID (live job page) and
 * #/submit (submit form). Talks to fdwaved's /v1 API with fetch(); follows a job with
 * EventSource on /v1/jobs/ID/events (which reconnects with Last-Event-ID by itself).
 * The token, if any, is kept in localStorage and sent as "Authorization: Bearer"; the
 * event stream and <img> cannot send headers, so they get ?access_token= instead. */
'use strict';

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

const TOKEN_KEY = 'fdwave.token';
const app = {
  token: localStorage.getItem(TOKEN_KEY) || '',
  source: null,        // EventSource of the job page
  timers: [],          // intervals of the current view
  jobId: null,
};

const $ = (id) => document.getElementById(id);

/* ---- API plumbing ------------------------------------------------------------------ */

class ApiError extends Error {
  constructor(status, code, message, field) {
    super(message);
    this.status = status;
    this.code = code;
    this.field = field;
  }
  /* "invalid_spec: sources[0].position: outside the grid" */
  text() {
    return `${this.code}: ${this.field ? this.field + ': ' : ''}${this.message}`;
  }
}

function withToken(url) {
  if (!app.token) return url;
  return url + (url.includes('?') ? '&' : '?') + 'access_token=' + encodeURIComponent(app.token);
}

async function api(method, path, { body, json = true, headers = {} } = {}) {
  const h = Object.assign({}, headers);
  if (app.token) h.Authorization = 'Bearer ' + app.token;
  let resp;
  try {
    resp = await fetch(path, { method, body, headers: h });
  } catch (e) {
    throw new ApiError(0, 'unreachable', 'cannot reach fdwaved: ' + e.message, null);
  }
  if (!resp.ok) {
    let err = null;
    try { err = (await resp.json()).error; } catch (e) { /* not the API's error shape */ }
    if (err) throw new ApiError(resp.status, err.code, err.message, err.field);
    throw new ApiError(resp.status, 'http_' + resp.status, resp.statusText || 'error', null);
  }
  return json ? resp.json() : resp;
}

function showError(el, e) {
  el.textContent = e instanceof ApiError ? e.text() : String(e);
  el.hidden = false;
}

/* ---- routing ----------------------------------------------------------------------- */

function leaveView() {
  if (app.source) { app.source.close(); app.source = null; }
  app.timers.forEach(clearInterval);
  app.timers = [];
  app.jobId = null;
  document.querySelectorAll('.view').forEach((v) => { v.hidden = true; });
}

function route() {
  leaveView();
  const h = location.hash || '#/';
  const m = h.match(/^#\/job\/(\d+)$/);
  if (m) return showJob(Number(m[1]));
  if (h === '#/submit') return showSubmit();
  return showJobs();
}

/* ---- job list ---------------------------------------------------------------------- */

function stateBadge(el, st) {
  el.textContent = st || '?';
  el.className = 'state state-' + (st || 'unknown');
}

function fmtPercent(job) {
  if (job.progress && typeof job.progress.percent === 'number')
    return job.progress.percent.toFixed(1) + '%';
  return job.state === 'succeeded' ? '100.0%' : '-';
}

async function loadJobs() {
  const st = $('jobs-state').value;
  const errEl = $('jobs-error');
  try {
    const data = await api('GET', '/v1/jobs?limit=100' + (st ? '&state=' + st : ''));
    errEl.hidden = true;
    const tbody = $('jobs-table').querySelector('tbody');
    tbody.textContent = '';
    for (const j of data.jobs) {
      const tr = document.createElement('tr');
      tr.className = 'clickable';
      tr.dataset.id = j.id;
      const cells = [j.id, null, j.name || '', j.kind || '', j.priority, fmtPercent(j),
                     j.created_at || ''];
      cells.forEach((c, i) => {
        const td = document.createElement('td');
        if (i === 1) {
          const s = document.createElement('span');
          stateBadge(s, j.state);
          td.appendChild(s);
        } else {
          td.textContent = c === null || c === undefined ? '' : String(c);
        }
        tr.appendChild(td);
      });
      tr.addEventListener('click', () => { location.hash = '#/job/' + j.id; });
      tbody.appendChild(tr);
    }
    $('jobs-empty').hidden = data.jobs.length > 0;
  } catch (e) {
    showError(errEl, e);
  }
}

function showJobs() {
  $('view-jobs').hidden = false;
  loadJobs();
  app.timers.push(setInterval(loadJobs, 3000));
}

/* ---- job page ---------------------------------------------------------------------- */

function fmtEta(s) {
  if (typeof s !== 'number' || s < 0) return '-';
  s = Math.round(s);
  if (s < 60) return s + 's';
  if (s < 3600) return Math.floor(s / 60) + 'm' + String(s % 60).padStart(2, '0') + 's';
  return Math.floor(s / 3600) + 'h' + String(Math.floor((s % 3600) / 60)).padStart(2, '0') + 'm';
}

function fmtRate(m) {
  if (typeof m !== 'number') return '';
  return m >= 1000 ? (m / 1000).toFixed(2) + ' Gpt/s' : m.toFixed(1) + ' Mpt/s';
}

function setProgress(percent, detail) {
  const p = Math.max(0, Math.min(100, Number(percent) || 0));
  $('job-progress-fill').style.width = p + '%';
  $('job-progress-text').textContent = p.toFixed(1) + '%';
  if (detail !== undefined) $('job-progress-detail').textContent = detail;
}

function progressDetail(p) {
  return `step ${p.step}/${p.nsteps} · ${fmtRate(p.mpts)} · ETA ${fmtEta(p.eta_s)}`;
}

function renderJob(job) {
  $('job-id').textContent = job.id;
  $('job-name').textContent = job.name || '';
  stateBadge($('job-state'), job.state);
  $('job-reason').textContent = job.reason || '';
  $('job-cancel').hidden = !(job.state === 'queued' || job.state === 'running');
  if (job.progress) setProgress(job.progress.percent, progressDetail(job.progress));
  if (job.state === 'succeeded') setProgress(100);
}

function logEvent(type, text) {
  const ol = $('events-log');
  const li = document.createElement('li');
  li.textContent = type + ': ' + text;
  li.className = 'ev-' + type;
  ol.appendChild(li);
  while (ol.children.length > 500) ol.removeChild(ol.firstChild);
  ol.scrollTop = ol.scrollHeight;
}

/* Shows the PNG files of a snapshot event, replacing the previous snapshot's images. */
function showSnapshot(ev) {
  const pngs = (ev.files || []).filter((f) => f.format === 'png' || /\.png$/.test(f.name));
  if (!pngs.length) return;
  const box = $('snapshots');
  box.textContent = '';
  for (const f of pngs) {
    const fig = document.createElement('figure');
    const img = document.createElement('img');
    img.alt = f.name;
    img.src = withToken(f.url);
    const cap = document.createElement('figcaption');
    cap.textContent = f.name;
    fig.appendChild(img);
    fig.appendChild(cap);
    box.appendChild(fig);
  }
  $('snapshot-caption').textContent =
    `#${ev.index}, step ${ev.step}, t = ${Number(ev.time).toFixed(3)} s`;
}

/* Blue-white-red, symmetric about zero: v in [-1, 1]. */
function colour(v) {
  const t = Math.max(-1, Math.min(1, v));
  if (t < 0) { const a = 1 + t; return [Math.round(255 * a), Math.round(255 * a), 255]; }
  const a = 1 - t;
  return [255, Math.round(255 * a), Math.round(255 * a)];
}

/* Draws a raw float32 gather (dims fastest first: [samples, receivers]) with time going
 * down and receivers across, on a symmetric scale clipped at the 99th percentile of |v|
 * so that the direct arrival does not wash out everything else. */
async function drawGather(jobId, file) {
  const dims = file.dims || [];
  const ns = dims[0], nrec = dims[1] || 1;
  const cap = $('gather-caption');
  const resp = await api('GET', file.url, { json: false });
  const buf = await resp.arrayBuffer();
  if (app.jobId !== jobId) return;
  if (!ns || buf.byteLength !== ns * nrec * 4) {
    cap.textContent = `${file.name}: size ${buf.byteLength} B does not match dims ${dims}`;
    return;
  }
  const data = new Float32Array(buf);
  const mags = Float32Array.from(data, Math.abs).sort();
  let clip = mags[Math.min(mags.length - 1, Math.floor(0.99 * mags.length))];
  if (!(clip > 0)) clip = mags[mags.length - 1] || 1;
  const cv = $('gather-canvas');
  cv.width = nrec;
  cv.height = ns;
  const ctx = cv.getContext('2d');
  const img = ctx.createImageData(nrec, ns);
  for (let r = 0; r < nrec; r++) {
    for (let s = 0; s < ns; s++) {
      const [R, G, B] = colour(data[r * ns + s] / clip);
      const o = (s * nrec + r) * 4;
      img.data[o] = R; img.data[o + 1] = G; img.data[o + 2] = B; img.data[o + 3] = 255;
    }
  }
  ctx.putImageData(img, 0, 0);
  cv.hidden = false;
  cv.dataset.drawn = '1';
  cap.textContent = `${file.name}: ${nrec} receivers × ${ns} samples (time down), ` +
    `symmetric scale clipped at ±${clip.toExponential(2)}`;
}

async function loadOutputs(jobId) {
  const m = await api('GET', `/v1/jobs/${jobId}/outputs`);
  if (app.jobId !== jobId) return;
  const ul = $('outputs-list');
  ul.textContent = '';
  const files = m.files || [];
  for (const f of files) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = withToken(f.url);
    a.textContent = f.name;
    a.download = f.name;
    li.appendChild(a);
    li.appendChild(document.createTextNode(' — ' + (f.description || f.kind || '')));
    ul.appendChild(li);
  }
  if (!files.length) ul.innerHTML = '<li class="muted">none</li>';
  const gather = files.find((f) => f.kind === 'gather' && f.format === 'raw-f32');
  if (gather) await drawGather(jobId, gather);
  else $('gather-caption').textContent = 'this job has no receiver gather';
}

function followEvents(jobId) {
  const es = new EventSource(withToken(`/v1/jobs/${jobId}/events`));
  app.source = es;
  const parse = (e) => { try { return JSON.parse(e.data); } catch (x) { return {}; } };
  es.addEventListener('state', (e) => {
    const d = parse(e);
    stateBadge($('job-state'), d.state);
    $('job-cancel').hidden = !(d.state === 'queued' || d.state === 'running');
    if (d.reason) $('job-reason').textContent = d.reason;
    logEvent('state', d.state + (d.reason ? ' (' + d.reason + ')' : ''));
  });
  es.addEventListener('progress', (e) => {
    const d = parse(e);
    const pct = Number(d.percent) || 0;
    setProgress(pct, progressDetail(d));
    logEvent('progress', pct.toFixed(1) + '% ' + progressDetail(d));
  });
  es.addEventListener('snapshot', (e) => {
    const d = parse(e);
    showSnapshot(d);
    logEvent('snapshot', `#${d.index} step ${d.step}`);
  });
  es.addEventListener('warning', (e) => logEvent('warning', parse(e).message));
  es.addEventListener('log', (e) => { const d = parse(e); logEvent('log', d.message); });
  es.addEventListener('end', async (e) => {
    es.close();
    if (app.source === es) app.source = null;
    const d = parse(e);
    logEvent('end', d.state + (d.reason ? ' (' + d.reason + ')' : ''));
    try {
      renderJob(await api('GET', `/v1/jobs/${jobId}`));
      await loadOutputs(jobId);
    } catch (x) {
      showError($('job-error'), x);
    }
  });
  es.onerror = () => {
    /* EventSource reconnects by itself with Last-Event-ID; say so in the log. */
    if (es.readyState === EventSource.CONNECTING) logEvent('connection', 'reconnecting');
  };
}

async function showJob(id) {
  app.jobId = id;
  $('view-job').hidden = false;
  $('job-id').textContent = id;
  $('job-name').textContent = '';
  $('job-reason').textContent = '';
  $('job-error').hidden = true;
  $('events-log').textContent = '';
  $('snapshots').innerHTML = '<p class="muted">none yet</p>';
  $('snapshot-caption').textContent = '';
  $('outputs-list').innerHTML = '<li class="muted">none yet</li>';
  $('gather-canvas').hidden = true;
  delete $('gather-canvas').dataset.drawn;
  $('gather-caption').textContent = 'available when the job has finished';
  setProgress(0, '');
  try {
    renderJob(await api('GET', `/v1/jobs/${id}`));
  } catch (e) {
    showError($('job-error'), e);
    return;
  }
  if (app.jobId === id) followEvents(id);
}

async function cancelJob() {
  const id = app.jobId;
  if (!id) return;
  try {
    renderJob(await api('POST', `/v1/jobs/${id}/cancel`));
  } catch (e) {
    showError($('job-error'), e);
  }
}

/* ---- submit form ------------------------------------------------------------------- */

function showSubmit() {
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

/* ---- header: token and health ------------------------------------------------------ */

async function loadHealth() {
  try {
    const h = await api('GET', '/v1/health');
    $('health').textContent = `${h.status} · fdwaved ${h.version} · ${h.queue} queued · ` +
      `${h.running} running`;
  } catch (e) {
    $('health').textContent = e instanceof ApiError ? e.code : 'unreachable';
  }
}

function init() {
  $('token-input').value = app.token;
  $('token-save').addEventListener('click', () => {
    app.token = $('token-input').value.trim();
    if (app.token) localStorage.setItem(TOKEN_KEY, app.token);
    else localStorage.removeItem(TOKEN_KEY);
    route();
    loadHealth();
  });
  $('jobs-refresh').addEventListener('click', loadJobs);
  $('jobs-state').addEventListener('change', loadJobs);
  $('job-cancel').addEventListener('click', cancelJob);
  $('submit-form').addEventListener('submit', submitJob);
  $('submit-reset').addEventListener('click', () => {
    $('submit-spec').value = JSON.stringify(EXAMPLE_SPEC, null, 2);
  });
  window.addEventListener('hashchange', route);
  loadHealth();
  setInterval(loadHealth, 10000);
  route();
}

init();
