// skillhost console: a page over the daemon's /v1 API (docs/http-api.md), nothing else. The token
// lives in this tab's sessionStorage and goes out as a bearer header: no cookies, so another site
// cannot make the browser act for the user. Everything from the API is put into the page as text,
// never as HTML. Event streams are read with fetch() (EventSource cannot send a bearer header).
'use strict';

const TOKEN_KEY = 'skillhost.token';
const MAX_SSE_BUFFER = 4 * 1024 * 1024;  // one event larger than this ends the stream
const MAX_AUDIT_ROWS = 500;
const POLL_MS = 2000;

// ---- small DOM helpers --------------------------------------------------------------------------

const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

function clear(node) { node.replaceChildren(); return node; }
function pretty(value) { return JSON.stringify(value, null, 2); }
function say(text) { $('status').textContent = text; }

// ---- the API ------------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || ('HTTP ' + status));
    this.status = status;
    this.code = e.code || ('HTTP_' + status);
    this.suggestions = Array.isArray(e.suggestions) ? e.suggestions : [];
  }
  // The API's own words: "CODE: message" and its suggestions.
  toString() {
    const tips = this.suggestions.length ? ' (' + this.suggestions.join('; ') + ')' : '';
    return this.code + ': ' + this.message + tips;
  }
}

function token() { return sessionStorage.getItem(TOKEN_KEY) || ''; }

function headers(extra) {
  const h = Object.assign({}, extra);
  if (token()) h['Authorization'] = 'Bearer ' + token();
  return h;
}

async function api(method, path, body) {
  const init = { method, headers: headers(body !== undefined ? { 'Content-Type': 'application/json' } : {}), cache: 'no-store' };
  if (body !== undefined) init.body = JSON.stringify(body);
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, { error: { code: 'NETWORK', message: 'the daemon did not answer (' + e.message + '); is skillhost serve running?' } });
  }
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (_) { data = text; }
  if (response.status === 401 && token()) onSignedOut(new ApiError(401, data));
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

// Answers can arrive out of order, and a slow answer must not overwrite a newer one. Each refresh
// of a view takes a ticket, and calls it before drawing: it answers false when a refresh started
// later has drawn already, or when a later refresh asked a new question (another filter, another
// run, the page left) — then this answer is for a question nobody asks any more. Polls ask no new
// question, so a slow poll never keeps the next one from drawing.
const tickets = new Map();
function ticket(view, newQuestion) {
  if (!tickets.has(view)) tickets.set(view, { started: 0, asked: 0, drawn: 0 });
  const t = tickets.get(view);
  const n = ++t.started;
  if (newQuestion) t.asked = n;
  return () => {
    if (n < t.asked || n < t.drawn) return false;
    t.drawn = n;
    return true;
  };
}

// Answers still on their way were asked for with the last user's token: none of them may draw.
function forgetAnswersOnTheirWay() {
  for (const t of tickets.values()) t.asked = ++t.started;
}

// Reads a Server-Sent Events body: calls onOpen() once the server accepted the stream, then
// onEvent(name, data) per event (data parsed as JSON when it is JSON). Resolves when the server
// ends the stream or `signal` aborts it.
async function stream(method, path, body, onEvent, signal, onOpen) {
  const init = { method, signal, cache: 'no-store', headers: headers({ Accept: 'text/event-stream' }) };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  if (!response.ok) {
    let data = null;
    try { data = await response.json(); } catch (_) { /* not JSON */ }
    if (response.status === 401) onSignedOut(new ApiError(401, data));
    throw new ApiError(response.status, data);
  }
  if (onOpen) onOpen();
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true }).replace(/\r\n/g, '\n');
    let cut;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let name = 'message';
      const data = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;  // keep-alive comment
        if (line.startsWith('event:')) name = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      }
      if (!data.length) continue;
      const text = data.join('\n');
      let parsed = text;
      try { parsed = JSON.parse(text); } catch (_) { /* plain text */ }
      onEvent(name, parsed);
    }
    if (buffer.length > MAX_SSE_BUFFER) {
      reader.cancel();
      throw new ApiError(0, { error: { code: 'STREAM_TOO_LARGE', message: 'an event was larger than the console reads (4 MiB)' } });
    }
  }
}

// ---- sign in ------------------------------------------------------------------------------------

let me = null;

// What the token may do (GET /v1/whoami reports its scopes: call, approve, admin). The console
// offers only that; the API still decides, and its refusal is shown in its words. A daemon that
// reports no scopes gets every control, and its answers say what it refuses.
function can(scope) {
  if (!me) return false;
  if (!Array.isArray(me.scopes)) return true;
  // Admin means an owner's powers: an owner's token without admin acts as a standard user.
  if (scope === 'admin') return me.scopes.includes('admin') && me.role === 'owner';
  return me.scopes.includes(scope);
}

// The sentence that says why a control is missing, naming the scope and how to get it.
function lacks(scope, what) {
  return 'This token cannot ' + what + ': it lacks the ' + scope + ' scope (skillhost token create --user ' +
    me.user_id + ' --scope ' + scope + ').';
}

function showWho(user) {
  const parts = [user.role, 'trust ' + user.trust, user.mode + ' mode'];
  const who = $('who');
  clear(who).append('Signed in as ', el('strong', { text: user.user_id }), ' (' + parts.join(', ') + ')');
  if (Array.isArray(user.scopes)) {
    who.append(' · scopes: ', el('span', { id: 'who-scopes', text: user.scopes.length ? user.scopes.join(', ') : 'none' }));
  }
  who.hidden = false;
  // Controls marked data-needs="SCOPE" appear only when the token has it.
  for (const node of document.querySelectorAll('[data-needs]')) node.hidden = !can(node.dataset.needs);
}

async function signIn(candidate) {
  sessionStorage.setItem(TOKEN_KEY, candidate);
  try {
    me = await api('GET', '/v1/whoami');
  } catch (e) {
    sessionStorage.removeItem(TOKEN_KEY);
    throw e;
  }
  showWho(me);
  $('signin').hidden = true;
  $('app').hidden = false;
  $('sign-out').hidden = false;
  startBackground();
  route();
}

// What one user saw is not left in the page for the next one who signs in at this tab.
const USER_CONTENT = ['transcript', 'ask-run', 'ask-error', 'approvals-pending', 'approvals-history', 'runs-list', 'run-detail',
  'skills-plugins', 'skills-failures', 'skills-meta', 'audit-rows', 'audit-meta', 'health-ready', 'health-metrics', 'pending-count', 'status'];

function onSignedOut(error) {
  sessionStorage.removeItem(TOKEN_KEY);
  me = null;
  stopBackground();
  if (ask.controller) ask.controller.abort();
  forgetAnswersOnTheirWay();
  for (const id of USER_CONTENT) clear($(id));
  approvals.shown = null;
  runs.selected = runs.listKey = runs.detailKey = null;
  skills.version = skills.key = null;
  $('app').hidden = true;
  $('who').hidden = true;
  $('sign-out').hidden = true;
  $('signin').hidden = false;
  $('signin-error').textContent = error ? String(error) : '';
  $('signin-title').focus();
}

$('signin-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const value = $('token').value.trim();
  $('signin-error').textContent = '';
  try {
    await signIn(value);
    $('token').value = '';
  } catch (e) {
    $('signin-error').textContent = 'Sign-in failed: ' + String(e);
    $('token').focus();
  }
});

$('sign-out').addEventListener('click', () => onSignedOut(null));

// ---- views and navigation -----------------------------------------------------------------------

const views = {};  // name -> {show(), hide()}
let current = null;

// A view whose tab needs a scope the token lacks is not shown; the first one it may use is.
function viewAllowed(name) {
  const tab = document.querySelector(`.tabs a[data-view="${name}"]`);
  return Boolean(views[name]) && !(tab && tab.parentElement.hidden);
}

function route() {
  if (!me) return;
  const name = (location.hash.match(/^#\/(\w+)/) || [])[1];
  const fallback = viewAllowed('ask') ? 'ask' : 'approvals';
  const next = viewAllowed(name) ? name : fallback;
  if (current && current !== next && views[current].hide) views[current].hide();
  for (const key of Object.keys(views)) $('view-' + key).hidden = key !== next;
  for (const a of document.querySelectorAll('.tabs a')) {
    if (a.dataset.view === next) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const changed = current !== next;
  if (changed) say('');  // a message belongs to the page it was said on
  current = next;
  if (changed) $(next + '-title').focus();
  if (name === 'ask' && next !== 'ask') say(lacks('call', 'ask the operator'));
  views[next].show();
}

window.addEventListener('hashchange', route);

// Polls while the page is signed in: the pending-approval badge.
let pendingTimer = null;
function startBackground() {
  stopBackground();
  const tick = async () => {
    const current = ticket('pending-count');
    try {
      const data = await api('GET', '/v1/approvals?state=pending');
      if (!current()) return;
      $('pending-count').textContent = data.approvals.length ? String(data.approvals.length) : '';
    } catch (_) { /* the views show errors */ }
  };
  tick();
  pendingTimer = setInterval(tick, POLL_MS);
}
function stopBackground() {
  if (pendingTimer) clearInterval(pendingTimer);
  pendingTimer = null;
  for (const v of Object.values(views)) if (v.hide) v.hide();
}

// ---- shared pieces: approval card, reject form --------------------------------------------------

function stateTag(state) { return el('span', { class: 'state state-' + state, text: state }); }

// Approve / reject controls for one approval; `after` runs with the API's answer. Without the
// approve scope, a note in their place (the API would refuse with MISSING_SCOPE).
function decisionControls(id, after, errorNode) {
  if (!can('approve')) return el('p', { class: 'meta no-approve', text: lacks('approve', 'approve or reject calls') });
  const reason = el('input', { id: 'reason-' + id, class: 'reason', placeholder: 'why not', autocomplete: 'off' });
  const approve = el('button', { type: 'button', class: 'approve', text: 'Approve' });
  const reject = el('button', { type: 'submit', class: 'danger', text: 'Reject' });
  const form = el('form', { class: 'reject' }, approve, el('label', { for: 'reason-' + id, text: 'Reason' }), reason, reject);
  const run = async (fn) => {
    approve.disabled = reject.disabled = true;
    errorNode.textContent = '';
    try {
      after(await fn());
    } catch (e) {
      errorNode.textContent = String(e);
      approve.disabled = reject.disabled = false;
    }
  };
  approve.addEventListener('click', () => run(() => api('POST', '/v1/approvals/' + encodeURIComponent(id) + '/approve')));
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    run(() => api('POST', '/v1/approvals/' + encodeURIComponent(id) + '/reject', { reason: reason.value }));
  });
  return form;
}

// Why the call waits: the policy decision the audit log recorded for it (the last `ask` for this
// user and skill at or before the request), naming the rule and where it is written.
function ruleLine(a) {
  const line = el('p', { class: 'meta rule' });
  const q = new URLSearchParams({ kind: 'decision', user: a.user, skill: a.skill, limit: '50' });
  api('GET', '/v1/audit?' + q).then((data) => {
    const asked = data.records.filter((r) => r.outcome === 'ask' && r.ts <= a.requested_at).pop();
    if (!asked) return;
    if (asked.rule) line.append('Asked by the rule ', el('code', { text: asked.rule }), asked.rule_location ? ' at ' + asked.rule_location : '');
    else line.append('Asked at the ' + asked.step + ' step' + (asked.reason ? ': ' + asked.reason : ''));
  }).catch(() => { /* the audit log is optional context */ });
  return line;
}

function approvalBody(a) {
  return [
    el('p', { class: 'preview', text: a.preview }),
    el('p', { class: 'meta' }, 'requested by ', el('code', { text: a.requested_by }), ' for ', el('code', { text: a.user }),
      ' at ' + a.requested_at + ' · expires ' + a.expires_at),
    ruleLine(a),
    el('details', {}, el('summary', { text: 'Arguments' }), el('pre', { text: pretty(a.arguments) })),
  ];
}

// ---- Ask ----------------------------------------------------------------------------------------

const ask = { controller: null, runId: null };

function transcriptItem(kind, ...content) {
  const item = el('li', { class: 'ev-' + kind }, el('span', { class: 'kind', text: kind.replace('_', ' ') }), ...content);
  $('transcript').append(item);
  return item;
}

async function inlineApproval(id, item) {
  const error = el('p', { class: 'error', role: 'alert' });
  const box = el('div', { class: 'approval-card', 'data-approval': id }, el('h4', { text: 'Approval needed: ' + id }));
  item.append(box);
  try {
    const a = await api('GET', '/v1/approvals/' + encodeURIComponent(id));
    box.append(...approvalBody(a));
  } catch (e) {
    box.append(el('p', { text: 'The preview could not be read: ' + String(e) }));
  }
  box.append(decisionControls(id, (answer) => {
    const record = answer.approval;
    box.querySelector('form.reject').replaceWith(el('p', {}, 'Decision: ', stateTag(record.state), record.reason ? ' — ' + record.reason : ''));
    say('Approval ' + id + ' ' + record.state + '; the run goes on.');
  }, error), error);
}

function guidanceForm(runId, item) {
  const input = el('input', { id: 'guide-' + runId, autocomplete: 'off' });
  const error = el('p', { class: 'error', role: 'alert' });
  const form = el('form', { class: 'reject' }, el('label', { for: 'guide-' + runId, text: 'Guidance' }), input,
    el('button', { type: 'submit', text: 'Guide and resume' }));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    error.textContent = '';
    try {
      await api('POST', '/v1/runs/' + encodeURIComponent(runId) + '/guidance', { text: input.value });
      form.replaceWith(el('p', { text: 'Guidance sent: ' + input.value }));
    } catch (e) {
      error.textContent = String(e);
    }
  });
  item.append(form, error);
}

function showRunEvent(name, data) {
  if (name === 'run') {
    ask.runId = data.run_id;
    $('ask-run').textContent = 'Run ' + data.run_id + ' is working.';
    return;
  }
  if (name === 'status') {
    const item = transcriptItem('status', 'The run is ', stateTag(data.status), data.note ? ' — ' + data.note : '');
    if (data.status === 'awaiting_approval') say('The run waits for approval ' + data.approval_id + '.');
    if (data.status === 'awaiting_input') say('The run waits for your answer to ' + data.elicitation_id + '.');
    if (data.status === 'needs_guidance') {
      if (data.error) item.append(el('p', { text: data.error.message }));
      guidanceForm(data.run_id, item);
    }
    return;
  }
  if (name === 'end') {
    const item = transcriptItem('end', 'Run ended: ', stateTag(data.status || 'failed'));
    if (data.error) item.append(el('p', { class: 'error', text: data.error.code + ': ' + data.error.message }));
    $('ask-run').textContent = 'Run ' + (data.id || ask.runId) + ' ' + (data.status || 'ended') + '.';
    say('The run ' + (data.status || 'ended') + '.');
    return;
  }
  const text = data && typeof data === 'object' ? data.text : String(data);
  if (name === 'action') {
    transcriptItem('action', el('code', { text: data.data.tool }), el('pre', { text: pretty(data.data.args) }));
  } else if (name === 'observation') {
    transcriptItem('observation', el('pre', { text }));
  } else if (name === 'completion') {
    transcriptItem('completion', el('p', { class: 'answer', text: (data.data && data.data.answer) || text }));
  } else if (name === 'approval_required') {
    inlineApproval(data.data.approval_id, transcriptItem('approval_required', el('span', { text })));
  } else if (name === 'error' && data.data) {
    transcriptItem('error', el('span', { text: data.data.code + ': ' + data.data.message }));
  } else {
    transcriptItem(name, el('span', { text }));
  }
}

async function watchRun(method, path, body) {
  if (ask.controller) ask.controller.abort();
  const controller = new AbortController();
  ask.controller = controller;
  $('ask-cancel').hidden = false;
  try {
    await stream(method, path, body, showRunEvent, controller.signal);
  } catch (e) {
    if (e.name !== 'AbortError') $('ask-error').textContent = String(e);
  } finally {
    if (ask.controller === controller) {
      ask.controller = null;
      $('ask-cancel').hidden = true;
      $('ask-submit').disabled = false;
    }
  }
}

$('ask-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const goal = $('goal').value.trim();
  if (!goal) return;
  clear($('transcript'));
  $('ask-error').textContent = '';
  $('ask-run').textContent = '';
  $('ask-submit').disabled = true;
  transcriptItem('goal', el('span', { text: goal }));
  watchRun('POST', '/v1/runs', { goal });
});

$('ask-cancel').addEventListener('click', async () => {
  if (!ask.runId) return;
  try {
    await api('POST', '/v1/runs/' + encodeURIComponent(ask.runId) + '/cancel');
    say('Cancelling run ' + ask.runId + '.');
  } catch (e) {
    $('ask-error').textContent = String(e);
  }
});

views.ask = { show() {} };

// ---- Approvals ----------------------------------------------------------------------------------

const approvals = { timer: null, shown: '' };

function pendingCard(a) {
  const error = el('p', { class: 'error', role: 'alert' });
  const card = el('li', { class: 'card', 'data-approval': a.id },
    el('h4', {}, el('code', { text: a.skill }), ' · ', a.id), ...approvalBody(a));
  card.append(decisionControls(a.id, (answer) => {
    say('Approval ' + a.id + ' ' + answer.approval.state + (answer.run && answer.run.resumed ? '; run ' + answer.run.run_id + ' resumed.' : '.'));
    refreshApprovals();
  }, error), error);
  return card;
}

async function refreshApprovals() {
  const current = ticket('approvals');
  try {
    const [pending, all] = await Promise.all([
      api('GET', '/v1/approvals?state=pending'),
      api('GET', '/v1/approvals?state=all&limit=50'),
    ]);
    if (!current()) return;
    $('approvals-error').textContent = '';
    // Redrawn only when the set changes, so a reason being typed is not lost.
    const key = pending.approvals.map((a) => a.id).join(',');
    if (key !== approvals.shown) {
      approvals.shown = key;
      const list = clear($('approvals-pending'));
      if (!pending.approvals.length) list.append(el('li', { class: 'meta', text: 'Nothing waits for a decision.' }));
      for (const a of pending.approvals) list.append(pendingCard(a));
    }
    const history = clear($('approvals-history'));
    for (const a of all.approvals.filter((x) => x.state !== 'pending')) {
      history.append(el('li', { class: 'card' }, stateTag(a.state), ' ', el('code', { text: a.skill }), ' · ' + a.preview,
        el('p', { class: 'meta', text: a.id + ' · by ' + (a.resolved_by || '—') + (a.resolved_at ? ' at ' + a.resolved_at : '') +
          (a.reason ? ' · reason: ' + a.reason : '') })));
    }
    if (!history.children.length) history.append(el('li', { class: 'meta', text: 'No decisions yet.' }));
  } catch (e) {
    if (current()) $('approvals-error').textContent = String(e);
  }
}

views.approvals = {
  show() {
    approvals.shown = null;
    refreshApprovals();
    if (!approvals.timer) approvals.timer = setInterval(refreshApprovals, POLL_MS);
  },
  hide() { clearInterval(approvals.timer); approvals.timer = null; },
};

// ---- Runs ---------------------------------------------------------------------------------------

// Redrawn only when something changed, so focus and typed guidance survive the polling.
const runs = { selected: null, timer: null, listKey: null, detailKey: null };

async function refreshRuns(newFilter) {
  const status = $('runs-status').value;
  const current = ticket('runs', newFilter);
  try {
    const data = await api('GET', '/v1/runs?limit=50' + (status ? '&status=' + encodeURIComponent(status) : ''));
    if (!current()) return;
    $('runs-error').textContent = '';
    const key = JSON.stringify(data.runs.map((r) => [r.id, r.status, r.steps]));
    if (key === runs.listKey) return;
    runs.listKey = key;
    const list = clear($('runs-list'));
    if (!data.runs.length) list.append(el('li', { class: 'meta', text: 'No runs.' }));
    for (const r of data.runs) {
      const button = el('button', { type: 'button', 'data-run': r.id, 'aria-current': r.id === runs.selected ? 'true' : null },
        stateTag(r.status), ' ', r.goal, el('br'), el('span', { class: 'meta', text: r.id + ' · ' + r.user + ' · ' + r.steps + ' steps · ' + new Date(r.created_ms).toLocaleString() }));
      button.addEventListener('click', () => showRun(r.id, true));
      list.append(el('li', {}, button));
    }
  } catch (e) {
    if (current()) $('runs-error').textContent = String(e);
  }
}

function stepItem(s) {
  const item = el('li', {}, el('p', { text: s.thought }));
  if (s.action) item.append(el('p', {}, 'Action: ', el('code', { text: s.action.tool })), el('pre', { text: pretty(s.action.args) }));
  if (s.observation) {
    const o = s.observation;
    item.append(el('p', {}, 'Observation ', el('span', { class: o.success ? 'ok' : 'bad', text: o.success ? '(ok)' : '(failed)' })),
      el('pre', { text: o.error ? o.error.code + ': ' + o.error.message : o.content }));
  }
  for (const w of s.warnings || []) item.append(el('p', { class: 'meta', text: 'warning: ' + w }));
  return item;
}

async function showRun(id, force) {
  runs.selected = id;
  for (const b of document.querySelectorAll('#runs-list button')) b.setAttribute('aria-current', String(b.dataset.run === id));
  const detail = $('run-detail');
  const current = ticket('run-detail', force);
  try {
    const r = await api('GET', '/v1/runs/' + encodeURIComponent(id));
    if (!current()) return;
    const key = JSON.stringify([r.id, r.status, (r.steps || []).length, r.updated_ms]);
    if (!force && key === runs.detailKey) return;
    runs.detailKey = key;
    clear(detail);
    const error = el('p', { class: 'error', role: 'alert' });
    detail.append(el('h3', { text: r.goal || id }), el('p', { class: 'meta' }, stateTag(r.status), ' · ' + r.id + ' · ' + (r.user || '')));
    if (r.answer) detail.append(el('p', {}, el('strong', { text: 'Answer: ' }), r.answer));
    if (r.error) detail.append(el('p', { class: 'error', text: r.error.code + ': ' + r.error.message }));
    const actions = el('div', { class: 'row wrap' });
    if (['running', 'awaiting_approval', 'awaiting_input', 'needs_guidance'].includes(r.status)) {
      actions.append(el('button', { type: 'button', class: 'danger', text: 'Cancel run', onclick: async () => {
        try {
          await api('POST', '/v1/runs/' + encodeURIComponent(id) + '/cancel');
          say('Cancelling run ' + id + '; it stops at its next step.');
          refreshRuns();
          showRun(id);
        } catch (e) { error.textContent = String(e); }
      } }));
      actions.append(el('button', { type: 'button', class: 'quiet', text: 'Watch live in Ask', onclick: () => {
        location.hash = '#/ask';
        clear($('transcript'));
        watchRun('GET', '/v1/runs/' + encodeURIComponent(id) + '/events');
      } }));
    }
    if (r.status === 'awaiting_approval' && r.approval_id) {
      actions.append(el('a', { href: '#/approvals', text: 'Decide approval ' + r.approval_id + ' to resume' }));
    }
    if (r.status === 'awaiting_input' && r.elicitation_id) {
      actions.append(el('code', { text: 'skillhost elicitations answer ' + r.elicitation_id }));
    }
    detail.append(actions, error);
    if (r.status === 'needs_guidance') guidanceForm(id, detail);
    detail.append(el('h4', { text: 'Steps' }), el('ol', { class: 'steps' }, (r.steps || []).map(stepItem)));
  } catch (e) {
    if (!current()) return;
    runs.detailKey = null;
    clear(detail).append(el('p', { class: 'error', text: String(e) }));
  }
}

$('runs-filter').addEventListener('submit', (ev) => { ev.preventDefault(); runs.listKey = null; refreshRuns(true); });
function pollRuns() {
  refreshRuns();
  if (runs.selected) showRun(runs.selected, false);
}

views.runs = {
  show() {
    runs.listKey = runs.detailKey = null;
    pollRuns();
    if (!runs.timer) runs.timer = setInterval(pollRuns, POLL_MS);
  },
  hide() { clearInterval(runs.timer); runs.timer = null; },
};

// ---- Skills -------------------------------------------------------------------------------------

const skills = { timer: null, version: null, key: null };

function schemaSummary(schema) {
  if (!schema || typeof schema !== 'object') return 'none';
  if (schema.type === 'object' && schema.properties) {
    const required = new Set(schema.required || []);
    const names = Object.entries(schema.properties).map(([k, v]) => k + (required.has(k) ? '' : '?') + ': ' + (v.type || 'any'));
    return names.length ? names.join(', ') : '(no fields)';
  }
  return schema.type || 'any';
}

function skillItem(summary, full) {
  const tags = el('span', { class: 'tags' },
    el('span', { class: 'risk-' + summary.risk, text: 'risk ' + summary.risk }),
    el('span', { text: 'min trust ' + summary.min_trust }),
    summary.read_only ? el('span', { text: 'read only' }) : null,
    summary.requires_approval ? el('span', { text: 'requires approval' }) : null,
    full && full.annotations && full.annotations.destructive ? el('span', { text: 'destructive' }) : null,
    full && full.annotations && full.annotations.open_world ? el('span', { text: 'open world' }) : null);
  const item = el('details', { class: 'skill', 'data-skill': summary.id },
    el('summary', {}, el('code', { text: summary.id }), ' — ' + (summary.title || ''), tags));
  if (full) {
    if (full.description) item.append(el('p', { text: full.description }));
    item.append(el('p', { class: 'mono' }, 'inputs: ' + schemaSummary(full.inputs)), el('p', { class: 'mono' }, 'outputs: ' + schemaSummary(full.outputs)));
  }
  return item;
}

// The manifest's `permissions:` in words: what the plugin may touch when it runs isolated.
function permissionsText(p) {
  if (!p) return 'unknown';
  if (!p.declared) return 'none declared: its own data directory only';
  const workspace = { none: 'no workspace', read: 'workspace read-only', read_write: 'workspace read and write' }[p.workspace] || 'workspace ' + p.workspace;
  return [workspace, p.network ? 'network' : 'no network', p.llm ? 'LLM completions' : 'no LLM'].join(', ');
}

// What a runner's sandbox enforces (docs/isolation.md), from the report the runner sent at start.
function sandboxText(sb) {
  if (!sb || !Object.keys(sb).length) return 'not reported';
  if (sb.mode === 'off') return 'off (no sandbox; resource limits only)';
  const parts = ['files ' + (sb.filesystem || 'not restricted')];
  if (sb.tcp) parts.push('TCP ' + sb.tcp);
  if (sb.internet_sockets) parts.push('internet sockets ' + sb.internet_sockets);
  if (sb.exec) parts.push('exec ' + sb.exec);
  parts.push(sb.seccomp ? 'seccomp on' : 'no seccomp');
  if (sb.no_new_privs) parts.push('no new privileges');
  const problems = [sb.landlock_problem, sb.seccomp_problem].filter(Boolean);
  return (sb.mode ? sb.mode + ': ' : '') + parts.join(', ') + (problems.length ? ' (' + problems.join('; ') + ')' : '');
}

// The plugin's header: version, isolation mode, permissions, and for runner plugins the sandbox
// and how often its runners crashed.
function pluginFacts(info) {
  const facts = el('dl', { class: 'pairs plugin-facts' });
  if (!info) return facts;
  const add = (label, value, key) => facts.append(el('dt', { text: label }), el('dd', { 'data-fact': key, text: value }));
  add('isolation', info.isolation === 'process' ? 'process (its own sandboxed runner)' : 'in process (inside the host)', 'isolation');
  add('permissions', permissionsText(info.permissions), 'permissions');
  if (info.isolation === 'process') {
    add('sandbox', sandboxText(info.sandbox), 'sandbox');
    const sv = info.supervision || {};
    if (sv.crash_limit !== undefined) {
      add('crashes', sv.crashes + ' in the last ' + sv.window_s + ' s (quarantined at ' + sv.crash_limit + ') · ' + sv.runners +
        (sv.runners === 1 ? ' runner' : ' runners') + ' running', 'crashes');
    }
  }
  return facts;
}

// A plugin that is not serving: quarantined after crashes, or failed to load.
function failureCard(f) {
  const quarantined = f.error.code === 'PLUGIN_QUARANTINED';
  return el('div', { class: 'failure', role: 'note', 'data-failure': f.plugin || f.manifest, 'data-state': quarantined ? 'quarantined' : 'failed' },
    el('strong', { text: (quarantined ? 'Quarantined: ' : 'Failed to load ') + (f.plugin || f.manifest) }),
    el('p', { text: f.error.code + ': ' + f.error.message }),
    el('p', { class: 'meta', text: f.manifest }));
}

async function refreshSkills(force) {
  const current = ticket('skills', force);
  try {
    const all = can('admin') && $('skills-all').checked;
    const list = await api('GET', '/v1/skills' + (all ? '?all=true' : ''));
    if (!current()) return;
    $('skills-error').textContent = '';
    // Crash counts change without a new catalog, so they are part of what is compared.
    const key = JSON.stringify([list.catalog_version, all, list.plugins || [], list.failures || []]);
    if (!force && key === skills.key) return;
    let full = [];
    try { full = await api('GET', '/v1/catalog?format=json' + (all ? '&all=true' : '')); } catch (_) { /* the summary is enough */ }
    if (!current()) return;  // a newer refresh draws the page
    skills.key = key;
    const changed = skills.version !== null && list.catalog_version !== skills.version;
    skills.version = list.catalog_version;
    const byId = new Map((Array.isArray(full) ? full : []).map((s) => [s.id, s]));
    const infos = new Map((list.plugins || []).map((p) => [p.name, p]));
    const plugins = new Map();
    for (const s of list.skills) {
      if (!plugins.has(s.plugin)) plugins.set(s.plugin, { version: s.plugin_version, entries: [] });
      plugins.get(s.plugin).entries.push(s);
    }
    $('skills-meta').textContent = 'Catalog version ' + list.catalog_version + ': ' + list.skills.length + ' skills from ' + plugins.size +
      ' plugins. It updates by itself when plugins are installed, removed or quarantined.';
    const open = new Set([...document.querySelectorAll('#skills-plugins details[open]')].map((d) => d.dataset.skill));
    const box = clear($('skills-plugins'));
    for (const [name, { version, entries }] of [...plugins.entries()].sort()) {
      const info = infos.get(name);
      box.append(el('section', { class: 'plugin', 'data-plugin': name, 'data-isolation': info ? info.isolation : null, 'aria-label': 'plugin ' + name },
        el('h3', {}, name, el('span', { class: 'meta', text: ' ' + version + ' · ' + entries.length + (entries.length === 1 ? ' skill' : ' skills') })),
        pluginFacts(info),
        entries.map((s) => skillItem(s, byId.get(s.id)))));
    }
    for (const d of box.querySelectorAll('details')) if (open.has(d.dataset.skill)) d.open = true;
    clear($('skills-failures')).append(...(list.failures || []).map(failureCard));
    if (changed) say('The catalog changed: version ' + list.catalog_version + ', ' + list.skills.length + ' skills.');
  } catch (e) {
    if (current()) $('skills-error').textContent = String(e);
  }
}

$('skills-all').addEventListener('change', () => refreshSkills(true));

views.skills = {
  show() {
    refreshSkills(true);
    if (!skills.timer) skills.timer = setInterval(() => refreshSkills(false), POLL_MS);
  },
  hide() { clearInterval(skills.timer); skills.timer = null; },
};

// ---- Audit --------------------------------------------------------------------------------------

const audit = { controller: null };

function auditQuery() {
  const q = new URLSearchParams();
  for (const [param, id] of [['user', 'audit-user'], ['skill', 'audit-skill'], ['kind', 'audit-kind'], ['since', 'audit-since']]) {
    const v = $(id).value.trim();
    if (v) q.set(param, v);
  }
  return q;
}

// The few fields that say what happened; the whole record is one click away.
const AUDIT_SUMMARY_FIELDS = ['outcome', 'step', 'state', 'event', 'reason', 'code', 'requested_by', 'duration_ms', 'role', 'model'];

function auditRow(r) {
  const summary = AUDIT_SUMMARY_FIELDS.filter((k) => r[k] !== undefined && r[k] !== null && r[k] !== '')
    .map((k) => k + ': ' + (typeof r[k] === 'object' ? JSON.stringify(r[k]) : r[k])).join(' · ');
  return el('tr', {}, el('td', { class: 'mono nowrap', text: (r.ts || '').replace('T', ' ') }), el('td', { class: 'nowrap', text: r.kind || '' }),
    el('td', { class: 'nowrap', text: r.user || '' }), el('td', { class: 'mono nowrap', text: r.skill || '' }),
    el('td', { class: 'what' }, summary, el('details', {}, el('summary', { text: 'record' }), el('pre', { text: pretty(r) }))));
}

function addAuditRow(r, atTop) {
  const body = $('audit-rows');
  if (atTop) body.prepend(auditRow(r)); else body.append(auditRow(r));
  while (body.children.length > MAX_AUDIT_ROWS) body.lastChild.remove();
}

async function startAudit() {
  stopAudit();
  const current = ticket('audit', true);
  const q = auditQuery();
  $('audit-error').textContent = '';
  clear($('audit-rows'));
  try {
    const history = await api('GET', '/v1/audit?' + new URLSearchParams([...q, ['limit', '100']]));
    // A newer filter, or leaving the page, while the history loaded: this one shows nothing and
    // opens no tail (its rows would mix into the newer filter's, its tail would never be closed).
    if (!current()) return;
    for (const r of history.records.slice().reverse()) addAuditRow(r, false);
    $('audit-meta').textContent = 'Showing the last ' + history.records.length + ' records; new ones appear at the top as they happen.' +
      (history.problems.length ? ' Problems reading the log: ' + history.problems.join('; ') : '');
  } catch (e) {
    if (current()) $('audit-error').textContent = String(e);
    return;
  }
  const controller = new AbortController();
  audit.controller = controller;
  const live = new URLSearchParams(q);
  live.delete('since');  // the tail starts now; the history above covers the past
  stream('GET', '/v1/audit/stream?' + live, undefined, (name, data) => {
    if (name === 'audit') addAuditRow(data, true);
    else if (name === 'error' && data.error) $('audit-error').textContent = data.error.code + ': ' + data.error.message;
  }, controller.signal, () => { $('audit-table').dataset.live = 'true'; }).catch((e) => {
    if (e.name !== 'AbortError') $('audit-error').textContent = String(e);
  }).finally(() => {
    if (audit.controller === controller) delete $('audit-table').dataset.live;
  });
}

function stopAudit() {
  ticket('audit', true);  // a start still loading its history is now stale
  if (audit.controller) audit.controller.abort();
  audit.controller = null;
  delete $('audit-table').dataset.live;
}

$('audit-filter').addEventListener('submit', (ev) => { ev.preventDefault(); startAudit(); });
views.audit = { show() { startAudit(); }, hide() { stopAudit(); } };

// ---- Health -------------------------------------------------------------------------------------

const KEY_METRICS = [
  ['skillhost_catalog_version', 'catalog version'],
  ['skillhost_plugins_loaded', 'plugins loaded'],
  ['skillhost_plugin_failures', 'plugins that failed'],
  ['skillhost_skills_loaded', 'skills loaded'],
  ['skillhost_approvals_pending', 'approvals pending'],
  ['skillhost_runs_active', 'runs working now'],
  ['skillhost_event_streams_open', 'event streams open'],
  ['skillhost_http_requests_in_flight', 'requests in flight'],
  ['skillhost_plugin_runners', 'plugin runners alive'],
  ['skillhost_plugin_crashes_total', 'plugin runner crashes'],
  ['skillhost_plugin_kills_total', 'runners killed (deadline)'],
  ['skillhost_plugin_quarantines_total', 'plugins quarantined'],
];

// Sums every sample of the metric `name` in the Prometheus text (labels or not).
function metricValue(text, name) {
  let total = null;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== ' ' && rest[0] !== '{') continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (!Number.isNaN(value)) total = (total || 0) + value;
  }
  return total;
}

function check(name, c, extra) {
  return el('li', {}, el('strong', { text: name + ': ' }), el('span', { class: c.ok ? 'ok' : 'bad', text: c.ok ? 'ok' : 'not ok' }),
    extra ? ' — ' + extra : '', c.error ? el('p', { class: 'error', text: c.error }) : null);
}

async function refreshHealth() {
  const current = ticket('health', true);
  $('health-error').textContent = '';
  try {
    const response = await fetch('/readyz', { cache: 'no-store' });
    const ready = await response.json();
    if (!current()) return;
    const box = clear($('health-ready'));
    const c = ready.checks || {};
    box.append(el('p', {}, el('strong', { text: 'Ready: ' }), el('span', { class: ready.ready ? 'ok' : 'bad', text: ready.ready ? 'yes' : 'no' })));
    const list = el('ul', {});
    if (c.plugins) list.append(check('plugins', c.plugins, c.plugins.loaded + ' loaded, ' + c.plugins.failed + ' failed, catalog version ' + c.plugins.catalog_version));
    if (c.database) list.append(check('database', c.database, c.database.file));
    if (c.isolation) {
      // What the sandbox enforces, per plugin: what /readyz reports from each runner.
      const iso = c.isolation;
      const item = check('isolation', iso, 'sandbox ' + iso.sandbox + ', plugins run ' + (iso.default_mode === 'process' ? 'in runner processes' : 'in process') + ' by default');
      item.dataset.check = 'isolation';
      item.append(el('ul', {}, (iso.plugins || []).map((p) => el('li', { 'data-plugin': p.plugin }, el('code', { text: p.plugin }), ' — ',
        p.mode === 'process' ? 'process: ' + sandboxText(p.sandbox) : 'in process (not sandboxed)'))));
      list.append(item);
    }
    if (c.models) {
      const roles = el('ul', {}, (c.models.roles || []).map((r) => el('li', {}, el('code', { text: r.role }), ' → ' + r.model_name + ' (' + r.backend + ') ',
        el('span', { class: r.reachable ? 'ok' : 'bad', text: r.reachable ? 'reachable' : 'unreachable' }), r.error ? ' — ' + r.error : '')));
      const item = check('models', c.models);
      item.append(roles);
      list.append(item);
    }
    box.append(list);
  } catch (e) {
    if (!current()) return;
    clear($('health-ready'));
    $('health-error').textContent = 'The readiness check failed: ' + e.message;
  }
  try {
    const text = await (await fetch('/metrics', { cache: 'no-store' })).text();
    if (!current()) return;
    const dl = clear($('health-metrics'));
    for (const [name, label] of KEY_METRICS) {
      const v = metricValue(text, name);
      if (v !== null) dl.append(el('dt', { text: label }), el('dd', { class: 'mono', 'data-metric': name, text: String(v) }));
    }
    const requests = metricValue(text, 'skillhost_http_requests_total');
    if (requests !== null) dl.append(el('dt', { text: 'HTTP requests answered' }), el('dd', { class: 'mono', text: String(requests) }));
  } catch (e) {
    if (current()) $('health-error').textContent = 'The metrics could not be read: ' + e.message;
  }
}

views.health = { show() { refreshHealth(); } };

// ---- start --------------------------------------------------------------------------------------

if (token()) {
  signIn(token()).catch((e) => onSignedOut(e));
} else {
  $('token').focus();
}
