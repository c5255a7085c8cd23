/* job.js — the job page (#/job/ID): state, reason and live progress from the event stream
 * (EventSource on /v1/jobs/ID/events, which reconnects with Last-Event-ID by itself), the
 * snapshots (snapshots.js: an imaging job's image stacking up, with axes from its spec) and, once the job has ended, the receiver gather (gather.js)
 * and the output files; a sweep job's convergence and slices (convergence.js); the event
 * log; Cancel while queued or running. When a job goes back from running to queued
 * (fdwaved restarted under it) the page says so, with the progress it had reached, and its
 * progress bar starts again from 0. Every state change refreshes the health line. */
import { api, withToken, showError, $ } from './api.js';
import { refreshHealth } from './health.js';
import { loadPrefs, savePrefs } from './viewprefs.js';
import { SnapshotView } from './snapshots.js';
import { GatherView } from './gather.js';
import { ConvergenceView } from './convergence.js';

const page = {
  id: null,
  source: null,
  snaps: null,
  gather: null,
  conv: null,        // a sweep job's convergence and slices (convergence.js)
  ran: false,        // running, or progress seen, since it was last queued
  reached: 0,        // the last percent shown
  manifest: { busy: false, again: false, finished: false },
};

function stateBadge(el, st) {
  el.textContent = st || '?';
  el.className = 'state state-' + (st || 'unknown');
}

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
  const change = typeof p.change === 'number'
    ? ` · largest change ${p.change.toExponential(2)} (${p.changed} changed)` : '';
  // a survey: shots done / total, then the steps of the shot under way (none: the count)
  if (typeof p.nshots === 'number' && !(p.shot > 0)) return `shots ${p.shots_done}/${p.nshots}`;
  const shots = typeof p.nshots === 'number'
    ? `shots ${p.shots_done}/${p.nshots} · shot ${p.shot} ` : '';
  return `${shots}step ${p.step}/${p.nsteps} · ${fmtRate(p.mpts)} · ETA ${fmtEta(p.eta_s)}${change}`;
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

/* Fetches the manifest for the snapshot view; one request at a time, one more if asked
 * for meanwhile. */
async function refreshManifest(jobId) {
  const m = page.manifest;
  if (m.busy) {
    m.again = true;
    return;
  }
  m.busy = true;
  try {
    const man = await api('GET', `/v1/jobs/${jobId}/outputs`);
    if (page.id === jobId) {
      page.snaps.setManifest(man.files, m.finished, man.survey);
      await page.snaps.render();
    }
  } catch (e) {
    if (page.id === jobId) showError($('job-error'), e);
  }
  m.busy = false;
  if (m.again && page.id === jobId) {
    m.again = false;
    refreshManifest(jobId);
  }
}

async function loadOutputs(jobId) {
  const m = await api('GET', `/v1/jobs/${jobId}/outputs`);
  if (page.id !== jobId) return;
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
  page.conv.fromManifest(m);
  try {
    const has = await page.gather.load(files);
    $('gather-tools').hidden = !has;
    if (!has) $('gather-caption').textContent = 'this job has no receiver gather';
  } catch (e) {
    $('gather-caption').textContent = 'cannot draw the gather: ' + e.message;
  }
}

function onState(d) {
  stateBadge($('job-state'), d.state);
  $('job-cancel').hidden = !(d.state === 'queued' || d.state === 'running');
  if (d.reason) $('job-reason').textContent = d.reason;
  logEvent('state', d.state + (d.reason ? ' (' + d.reason + ')' : ''));
  if (d.state === 'queued' && page.ran) {
    const n = $('job-notice');
    n.textContent = `Re-queued after a restart of fdwaved: it had reached ` +
      `${page.reached.toFixed(1)}%; when it runs again it resumes from its last checkpoint ` +
      `(from step 0 if it has none).`;
    n.hidden = false;
    logEvent('requeued', `re-queued after a restart at ${page.reached.toFixed(1)}%`);
    setProgress(0, 'waiting to run again');
  }
  page.ran = d.state === 'running' || (page.ran && d.state !== 'queued');
  refreshHealth('event');
}

function followEvents(jobId) {
  const es = new EventSource(withToken(`/v1/jobs/${jobId}/events`));
  page.source = es;
  const parse = (e) => { try { return JSON.parse(e.data); } catch (x) { return {}; } };
  es.addEventListener('state', (e) => onState(parse(e)));
  es.addEventListener('progress', (e) => {
    const d = parse(e);
    const pct = Number(d.percent) || 0;
    page.ran = true;
    page.reached = pct;
    setProgress(pct, progressDetail(d));
    page.conv.progress(d);
    logEvent('progress', pct.toFixed(1) + '% ' + progressDetail(d));
  });
  es.addEventListener('snapshot', (e) => {
    const d = parse(e);
    page.snaps.add(d);
    refreshManifest(jobId);
    logEvent('snapshot', `#${d.index} step ${d.step}`);
  });
  es.addEventListener('warning', (e) => logEvent('warning', parse(e).message));
  es.addEventListener('log', (e) => { const d = parse(e); logEvent('log', `${d.level}: ${d.message}`); });
  es.addEventListener('end', async (e) => {
    es.close();
    if (page.source === es) page.source = null;
    const d = parse(e);
    logEvent('end', d.state + (d.reason ? ' (' + d.reason + ')' : ''));
    refreshHealth('event');
    page.manifest.finished = true;
    refreshManifest(jobId);
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

export function leaveJob() {
  if (page.source) {
    page.source.close();
    page.source = null;
  }
  if (page.snaps) page.snaps.close();
  if (page.gather) page.gather.close();
  page.id = null;
}

export async function showJob(id) {
  page.id = id;
  page.ran = false;
  page.reached = 0;
  page.manifest = { busy: false, again: false, finished: false };
  $('view-job').hidden = false;
  $('job-id').textContent = id;
  $('job-name').textContent = '';
  $('job-reason').textContent = '';
  $('job-notice').hidden = true;
  $('job-error').hidden = true;
  $('events-log').textContent = '';
  $('snapshots').innerHTML = '<p class="muted">none yet</p>';
  delete $('snapshots').dataset.shown;
  $('snapshot-caption').textContent = '';
  $('snap-index').value = '0';
  $('snap-index').max = '0';
  $('snap-index').hidden = true;
  $('outputs-list').innerHTML = '<li class="muted">none yet</li>';
  $('gather-canvas').hidden = true;
  $('gather-tools').hidden = false;
  $('gather-pick').hidden = true;
  $('gather-file').textContent = '';
  delete $('gather-canvas').dataset.drawn;
  $('gather-svg').textContent = '';
  $('gather-caption').textContent = 'available when the job has finished';
  setProgress(0, '');
  page.conv = new ConvergenceView({ box: $('sweep-box'), svg: $('conv-svg'),
                                    caption: $('conv-caption'), table: $('conv-table'),
                                    slices: $('sweep-slices') });
  const prefs = loadPrefs(id);
  const save = () => savePrefs(id, prefs);
  page.snaps = new SnapshotView({ box: $('snapshots'), control: $('snap-control'),
                                  slider: $('snap-index'), caption: $('snapshot-caption') },
                                prefs.snap, save);
  page.gather = new GatherView({ plot: $('gather-plot'), canvas: $('gather-canvas'),
                                 svg: $('gather-svg'), control: $('gather-control'),
                                 style: $('gather-style'), caption: $('gather-caption'),
                                 pick: { label: $('gather-pick'), select: $('gather-file') } },
                               prefs.gather, save);
  try {
    const job = await api('GET', `/v1/jobs/${id}`);
    if (page.id === id) page.snaps.setJob(job);
    renderJob(job);
  } catch (e) {
    showError($('job-error'), e);
    return;
  }
  if (page.id === id) followEvents(id);
}

export function initJob() {
  $('job-cancel').addEventListener('click', async () => {
    const id = page.id;
    if (!id) return;
    try {
      renderJob(await api('POST', `/v1/jobs/${id}/cancel`));
    } catch (e) {
      showError($('job-error'), e);
    }
  });
}
