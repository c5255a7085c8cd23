/* main.js — the fdwave web page's entry (loaded by index.html as a module): hash routes
 * #/ (job list, jobs.js), #/job/ID (job page, job.js) and #/submit (submit.js), the
 * token box in the header (api.js keeps the token) and the health line (health.js). */
import { getToken, setToken, $ } from './api.js';
import { startHealth, refreshHealth } from './health.js';
import { showJobs, initJobs } from './jobs.js';
import { showJob, leaveJob, initJob } from './job.js';
import { showSubmit, initSubmit } from './submit.js';

let timers = [];

function route() {
  leaveJob();
  timers.forEach(clearInterval);
  timers = [];
  document.querySelectorAll('.view').forEach((v) => { v.hidden = true; });
  const h = location.hash || '#/';
  const m = h.match(/^#\/job\/(\d+)$/);
  if (m) return showJob(Number(m[1]));
  if (h === '#/submit') return showSubmit();
  return showJobs(timers);
}

function init() {
  $('token-input').value = getToken();
  $('token-save').addEventListener('click', () => {
    setToken($('token-input').value.trim());
    route();
    refreshHealth('token');
  });
  initJobs();
  initJob();
  initSubmit();
  window.addEventListener('hashchange', route);
  startHealth();
  route();
}

init();
