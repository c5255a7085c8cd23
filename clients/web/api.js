/* api.js — how the page talks to fdwaved's /v1 API: fetch() with the token (kept in
 * localStorage, sent as "Authorization: Bearer"), errors as ApiError with the server's
 * code, message and field path, and withToken() for the URLs that cannot send headers
 * (EventSource, <img>, download links), which get ?access_token= instead. */

const TOKEN_KEY = 'fdwave.token';
let token = localStorage.getItem(TOKEN_KEY) || '';

export function getToken() {
  return token;
}

/* Saves the token ('' forgets it). */
export function setToken(t) {
  token = t;
  if (t) localStorage.setItem(TOKEN_KEY, t);
  else localStorage.removeItem(TOKEN_KEY);
}

export class ApiError extends Error {
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

export function withToken(url) {
  if (!token) return url;
  return url + (url.includes('?') ? '&' : '?') + 'access_token=' + encodeURIComponent(token);
}

/* One request. Resolves to the parsed JSON (or, with json: false, the Response) of a 2xx
 * answer; rejects with an ApiError otherwise ("unreachable" when nothing answered). */
export async function api(method, path, { body, json = true, headers = {} } = {}) {
  const h = Object.assign({}, headers);
  if (token) h.Authorization = 'Bearer ' + token;
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

/* Shows an error in a page element (the API's "code: field: message" form). */
export function showError(el, e) {
  el.textContent = e instanceof ApiError ? e.text() : String(e);
  el.hidden = false;
}

export const $ = (id) => document.getElementById(id);
