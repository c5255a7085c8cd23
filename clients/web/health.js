/* health.js — the health line in the header ("ok · fdwaved 0.x · 1 queued · 2 running").
 * It is fetched again whenever the page learns that a job changed state: a state or end
 * event on the job page, or a job list refresh that shows a state other than the last
 * one; a slow timer covers the rest (another user's jobs, the daemon going away). Fetches
 * do not pile up: a request while one is on the way makes one more after it. The element
 * records why it was last updated (data-reason), for the browser test. */
import { api, ApiError, $ } from './api.js';

const FALLBACK_MS = 30000;
let busy = false;
let again = null;

export async function refreshHealth(reason) {
  if (busy) {
    again = reason;
    return;
  }
  busy = true;
  const el = $('health');
  try {
    const h = await api('GET', '/v1/health');
    el.textContent = `${h.status} · fdwaved ${h.version} · ${h.queue} queued · ` +
      `${h.running} running`;
  } catch (e) {
    el.textContent = e instanceof ApiError ? e.code : 'unreachable';
  }
  el.dataset.reason = reason;
  el.dataset.updated = String(Date.now());
  busy = false;
  if (again !== null) {
    const r = again;
    again = null;
    refreshHealth(r);
  }
}

export function startHealth() {
  refreshHealth('start');
  setInterval(() => refreshHealth('timer'), FALLBACK_MS);
}
