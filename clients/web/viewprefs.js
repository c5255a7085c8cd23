/* viewprefs.js — how the user chose to look at each job, kept in localStorage per job id:
 * the snapshots' scale (fixed for the whole job by default, per snapshot, or a clip
 * percentile) and the gather's scale and style (image or wiggle). */

const DEFAULTS = {
  snap: { mode: 'job', pct: 99 },
  gather: { mode: 'max', pct: 99, style: 'image' },
};

const key = (jobId) => 'fdwave.view.' + jobId;

export function loadPrefs(jobId) {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(key(jobId)) || '{}') || {}; } catch (e) { /* */ }
  return {
    snap: Object.assign({}, DEFAULTS.snap, saved.snap),
    gather: Object.assign({}, DEFAULTS.gather, saved.gather),
  };
}

export function savePrefs(jobId, prefs) {
  localStorage.setItem(key(jobId), JSON.stringify(prefs));
}
