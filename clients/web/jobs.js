/* jobs.js — the job list (#/): one page of GET /v1/jobs at a time, newest first, filtered
 * by state and by name (the API filters, so pages stay full), with Newer/Older buttons
 * that follow the API's "before" cursor, refreshed every 3 s in place. A job whose state
 * changed since the last refresh refreshes the health line. */
import { api, showError, $ } from './api.js';
import { refreshHealth } from './health.js';

const list = {
  cursors: [null],   // the "before" of each page visited; the last is the one shown
  next: null,        // the "before" of the page after this one, or null
  states: new Map(), // job id -> state at the last refresh
  nameTimer: null,
};

function stateBadge(el, st) {
  el.textContent = st || '?';
  el.className = 'state state-' + (st || 'unknown');
}

function fmtPercent(job) {
  if (job.progress && typeof job.progress.percent === 'number')
    return job.progress.percent.toFixed(1) + '%';
  return job.state === 'succeeded' ? '100.0%' : '-';
}

function query() {
  const q = new URLSearchParams();
  if ($('jobs-state').value) q.set('state', $('jobs-state').value);
  const name = $('jobs-name').value.trim();
  if (name) q.set('name', name);
  q.set('limit', $('jobs-limit').value);
  const before = list.cursors[list.cursors.length - 1];
  if (before) q.set('before', String(before));
  return q;
}

export async function loadJobs() {
  const errEl = $('jobs-error');
  const q = query();
  let data;
  try {
    data = await api('GET', '/v1/jobs?' + q.toString());
  } catch (e) {
    showError(errEl, e);
    return;
  }
  if (q.toString() !== query().toString()) return; // the filters changed meanwhile
  errEl.hidden = true;
  const tbody = $('jobs-table').querySelector('tbody');
  tbody.textContent = '';
  let changed = false;
  for (const j of data.jobs) {
    if (list.states.has(j.id) && list.states.get(j.id) !== j.state) changed = true;
    list.states.set(j.id, j.state);
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
  if (changed) refreshHealth('list');
  list.next = null;
  if (data.next) {
    const b = new URLSearchParams(data.next.split('?')[1] || '').get('before');
    list.next = b ? Number(b) : data.jobs.length ? data.jobs[data.jobs.length - 1].id : null;
  }
  const filtered = q.has('state') || q.has('name');
  const page = list.cursors.length;
  $('jobs-empty').hidden = data.jobs.length > 0;
  $('jobs-empty-text').textContent = filtered || page > 1 ? 'No jobs match.' : 'No jobs yet.';
  $('jobs-newer').disabled = page === 1;
  $('jobs-older').disabled = list.next === null;
  $('jobs-page').textContent = data.jobs.length
    ? `page ${page}: jobs ${data.jobs[0].id} to ${data.jobs[data.jobs.length - 1].id}`
    : `page ${page}`;
}

/* Back to the first page (after a filter changed). */
function firstPage() {
  list.cursors = [null];
  loadJobs();
}

export function showJobs(timers) {
  $('view-jobs').hidden = false;
  loadJobs();
  timers.push(setInterval(loadJobs, 3000));
}

export function initJobs() {
  $('jobs-refresh').addEventListener('click', loadJobs);
  $('jobs-state').addEventListener('change', firstPage);
  $('jobs-limit').addEventListener('change', firstPage);
  $('jobs-name').addEventListener('input', () => {
    clearTimeout(list.nameTimer);
    list.nameTimer = setTimeout(firstPage, 300);
  });
  $('jobs-older').addEventListener('click', () => {
    if (list.next === null) return;
    list.cursors.push(list.next);
    loadJobs();
  });
  $('jobs-newer').addEventListener('click', () => {
    if (list.cursors.length > 1) list.cursors.pop();
    loadJobs();
  });
}
