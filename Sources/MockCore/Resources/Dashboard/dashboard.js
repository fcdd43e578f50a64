// Understudy's dashboard. Everything it shows comes from the admin API and goes into the page as
// text (textContent, form values), never as markup: requests carry whatever a client sent.
'use strict';

const admin = '/__admin';
const $ = (id) => document.getElementById(id);

/// An element with text and classes; children appended as given.
function el(tag, options = {}, ...children) {
  const node = document.createElement(tag);
  if (options.text !== undefined) node.textContent = String(options.text);
  if (options.className) node.className = options.className;
  if (options.title) node.title = options.title;
  for (const child of children) if (child) node.append(child);
  return node;
}

// MARK: The admin API

class AdminError extends Error {}

/// Calls the admin API with the token the user gave (if any); asks for one on 401.
async function api(path, options = {}) {
  const headers = Object.assign({}, options.headers || {});
  const token = sessionStorage.getItem('understudy-token');
  if (token) headers.Authorization = 'Bearer ' + token;
  if (options.json !== undefined) {
    headers['Content-Type'] = 'application/json';
    options.body = typeof options.json === 'string' ? options.json : JSON.stringify(options.json);
  }
  const response = await fetch(admin + path, {method: options.method || 'GET', headers, body: options.body, cache: 'no-store'});
  if (response.status === 401) {
    $('token-form').hidden = false;
    throw new AdminError('The admin API wants its token.');
  }
  const text = await response.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch (error) { body = text; }
  if (!response.ok) throw new AdminError(problem(body) || `${response.status} from ${path}`);
  return body;
}

/// The message of an admin API error body (WireMock's `errors[].title`, or `message`).
function problem(body) {
  if (!body) return '';
  if (typeof body === 'string') return body.trim();
  if (Array.isArray(body.errors)) return body.errors.map((e) => [e.title, e.detail].filter(Boolean).join(': ')).join('; ');
  return body.message || '';
}

function showError(error) {
  const box = $('error');
  box.textContent = error instanceof Error ? error.message : String(error);
  box.hidden = false;
}

function clearError() { $('error').hidden = true; }

$('token-form').addEventListener('submit', (event) => {
  event.preventDefault();
  sessionStorage.setItem('understudy-token', $('token').value.trim());
  $('token-form').hidden = true;
  clearError();
  refreshView();
});

// MARK: Views

let currentView = 'requests';

for (const tab of document.querySelectorAll('#tabs .tab')) {
  tab.addEventListener('click', () => showView(tab.dataset.view));
}

function showView(name) {
  currentView = name;
  for (const tab of document.querySelectorAll('#tabs .tab')) tab.classList.toggle('active', tab.dataset.view === name);
  for (const view of document.querySelectorAll('.view')) view.hidden = view.id !== 'view-' + name;
  clearError();
  refreshView();
}

function refreshView() {
  if (currentView === 'mappings') loadMappings().catch(showError);
  if (currentView === 'scenarios') loadScenarios().catch(showError);
  if (currentView === 'channels') loadChannels().catch(showError);
  if (currentView === 'backends') loadBackends().catch(showError);
}

// MARK: Live requests

const requests = [];        // summaries, oldest first
const maxKept = 1000;
let paused = false;
let waiting = [];           // arrived while paused
let selectedId = null;
const backendsSeen = new Set();
const scopesSeen = new Set();

async function follow() {
  let next = 0;
  let wait = 0;   // the first call answers at once with what the journal holds
  for (;;) {
    try {
      const page = await api(`/requests/live?scope=*&after=${next}&timeout=${wait}&limit=500`);
      wait = 20;
      $('connection').textContent = 'live';
      $('connection').classList.add('live');
      next = page.next;
      if (page.requests.length) arrived(page.requests);
    } catch (error) {
      $('connection').textContent = 'reconnecting…';
      $('connection').classList.remove('live');
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

function arrived(summaries) {
  if (paused) {
    waiting.push(...summaries);
    $('pause').textContent = `Resume (${waiting.length} new)`;
    return;
  }
  requests.push(...summaries);
  if (requests.length > maxKept) requests.splice(0, requests.length - maxKept);
  for (const request of summaries) {
    noteOption(backendsSeen, $('filter-backend'), request.servedBy || 'none');
    noteOption(scopesSeen, $('filter-scope'), request.scope);
  }
  renderRequests();
}

function noteOption(seen, select, value) {
  if (seen.has(value)) return;
  seen.add(value);
  const option = el('option', {text: value});
  option.value = value;
  select.append(option);
}

// The journal of the scope the filter names (the default scope's when none is) as a HAR file.
$('export-har').addEventListener('click', async () => {
  clearError();
  const scope = $('filter-scope').value || 'default';
  try {
    const har = await api(`/requests?format=har&scope=${encodeURIComponent(scope)}`);
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([JSON.stringify(har, null, 2)], {type: 'application/json'}));
    link.download = `understudy-${scope}.har`;
    link.click();
    URL.revokeObjectURL(link.href);
  } catch (error) { showError(error); }
});

$('pause').addEventListener('click', () => {
  paused = !paused;
  $('pause').textContent = paused ? 'Resume' : 'Pause';
  $('pause').classList.toggle('active', paused);
  if (!paused && waiting.length) {
    const held = waiting;
    waiting = [];
    arrived(held);
  }
});

$('clear-list').addEventListener('click', () => {
  requests.length = 0;
  renderRequests();
});

for (const id of ['filter-text', 'filter-status', 'filter-backend', 'filter-scope']) {
  $(id).addEventListener('input', renderRequests);
  $(id).addEventListener('change', renderRequests);
}

function matchesFilters(request) {
  const text = $('filter-text').value.trim().toLowerCase();
  const status = $('filter-status').value;
  const backend = $('filter-backend').value;
  const scope = $('filter-scope').value;
  if (text && !`${request.method} ${request.url} ${request.status} ${request.servedBy || 'unmatched'} ${request.scope}`.toLowerCase().includes(text)) return false;
  if (status === 'unmatched' && request.servedBy) return false;
  if (status && status !== 'unmatched' && String(Math.floor(request.status / 100)) !== status) return false;
  if (backend && (request.servedBy || 'none') !== backend) return false;
  if (scope && request.scope !== scope) return false;
  return true;
}

function statusClass(status) { return 's' + (status >= 100 && status < 600 ? Math.floor(status / 100) : 0); }

function clock(millis) {
  const date = new Date(millis);
  return date.toLocaleTimeString([], {hour12: false}) + '.' + String(date.getMilliseconds()).padStart(3, '0');
}

function renderRequests() {
  const shown = requests.filter(matchesFilters).reverse();
  const list = $('request-list');
  list.replaceChildren(...shown.map((request) => {
    const row = el('li', {className: 'request-row' + (request.id === selectedId ? ' selected' : '')},
      el('span', {className: 'status ' + statusClass(request.status), text: request.status || '—'}),
      el('span', {className: 'method', text: request.method}),
      el('span', {className: 'url', text: request.url}),
      el('span', {className: 'time', text: clock(request.loggedDate)}),
      el('span', {className: 'meta', text: `${request.servedBy || 'unmatched'} · ${(request.totalTimeMicros / 1000).toFixed(1)} ms`
        + (request.scope === 'default' ? '' : ` · scope ${request.scope}`)}));
    if (request.violations) {
      row.append(el('span', {className: 'contract-badge', text: `contract ×${request.violations}`,
        title: 'broke the API contract (serve --openapi)'}));
    }
    row.dataset.id = request.id;
    if (!request.servedBy) row.classList.add('unmatched-row');
    row.addEventListener('click', () => openRequest(request.id));
    return row;
  }));
  $('request-count').textContent = `${shown.length} of ${requests.length} requests` + (paused ? ' (paused)' : '');
}

// MARK: One request

let current = null;   // the serve event shown

$('detail-back').addEventListener('click', () => {
  $('detail').hidden = true;
  $('view-requests').classList.remove('showing-detail');
});

async function openRequest(id) {
  selectedId = id;
  renderRequests();
  try {
    current = await api('/requests/' + encodeURIComponent(id));
  } catch (error) {
    return showError(error);
  }
  clearError();
  renderDetail(current);
  $('detail').hidden = false;
  $('view-requests').classList.add('showing-detail');
}

function renderDetail(event) {
  const request = event.request;
  $('detail-title').textContent = `${request.method} ${request.url}`;
  $('detail-summary').textContent = `${event.response.status} · ${request.loggedDateString} · ${event.timing.totalTime} ms · scope ${event.scope} · from ${request.clientIp}`;
  const answered = $('answered-by');
  answered.replaceChildren();
  if (event.stubMapping) {
    const stub = event.stubMapping;
    const open = el('button', {text: 'Open mapping'});
    open.type = 'button';
    open.addEventListener('click', () => openMappingById(stub.id));
    answered.append(el('strong', {text: 'Answered by stub '}), el('span', {className: 'stub-name', text: stub.name || stub.id}),
      el('div', {className: 'muted mono', text: stub.id}), open);
  } else if (event.servedBy) {
    answered.append(el('strong', {text: 'Answered by '}), el('span', {className: 'stub-name', text: event.servedBy}));
  } else {
    answered.append(el('strong', {className: 'unmatched', text: 'Nothing answered this request.'}),
      el('div', {className: 'muted', text: 'The closest stubs and why they missed are below; "Save as stub" makes one that answers it.'}));
  }
  $('curl-text').hidden = true;
  $('stub-draft').hidden = true;
  $('stub-result').textContent = '';
  renderNearMisses(event.nearMisses || []);
  renderViolations(event.violations || []);
  renderHeaders($('request-headers'), request.headers);
  renderBody($('request-body'), request.bodyAsBase64, headerValue(request.headers, 'content-type'));
  renderHeaders($('response-headers'), event.response.headers);
  renderBody($('response-body'), event.response.bodyAsBase64, headerValue(event.response.headers, 'content-type'));
  if (event.responseBodyTruncatedFrom) {
    const kept = decodeBase64(event.response.bodyAsBase64).length;
    $('response-body').prepend(el('p', {className: 'muted truncated',
      text: `Body truncated at ${Math.round(kept / 1024)} KiB of ${event.responseBodyTruncatedFrom.toLocaleString()} bytes sent.`}));
  }
}

// What the exchange broke of the API contract: where, the rule, and the place in the document.
function renderViolations(violations) {
  const box = $('violations');
  box.replaceChildren();
  if (!violations.length) return;
  box.append(el('h3', {text: 'API contract violations'}));
  box.append(el('ul', {className: 'card violations'}, ...violations.map((violation) => el('li', {},
    el('strong', {text: `${violation.in} ${violation.pointer || 'body'}: `}),
    el('span', {text: violation.rule}),
    el('div', {className: 'muted mono', text: `${violation.operation || ''} ${violation.specLocation}`.trim()})))));
}

function renderNearMisses(misses) {
  const box = $('near-misses');
  box.replaceChildren();
  if (!misses.length) return;
  box.append(el('h3', {text: 'Near misses'}));
  for (const miss of misses) {
    const reasons = el('ul', {}, ...miss.misses.map((reason) => el('li', {text: reason})));
    const use = el('button', {text: 'Start a stub from it'});
    use.type = 'button';
    use.addEventListener('click', () => draftStub(nearMissDraft(miss.stubMapping)));
    box.append(el('div', {className: 'card miss'},
      el('strong', {className: 'miss-summary', text: miss.summary}),
      el('div', {className: 'muted', text: `distance ${miss.matchResult.distance.toFixed(2)}`}), reasons, use));
  }
}

function headerValue(headers, name) {
  for (const key of Object.keys(headers || {})) {
    if (key.toLowerCase() === name) return [].concat(headers[key])[0];
  }
  return '';
}

function renderHeaders(table, headers) {
  table.replaceChildren(...Object.keys(headers || {}).map((name) =>
    el('tr', {}, el('th', {text: name}), el('td', {text: [].concat(headers[name]).join(', ')}))));
}

function decodeBase64(base64) {
  const binary = atob(base64 || '');
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/// A body as the user wants to read it: pretty JSON or XML, an image, else text.
function renderBody(box, base64, contentType) {
  box.replaceChildren();
  box.className = 'body';
  const bytes = decodeBase64(base64);
  if (!bytes.length) return box.append(el('p', {className: 'muted', text: 'No body.'}));
  const type = (contentType || '').toLowerCase();
  if (type.startsWith('image/')) {
    const image = el('img');
    image.alt = 'body (' + type + ')';
    image.src = URL.createObjectURL(new Blob([bytes], {type: type.split(';')[0]}));
    return box.append(image);
  }
  const text = new TextDecoder().decode(bytes);
  box.append(el('pre', {text: pretty(text, type)}));
}

function pretty(text, type) {
  const trimmed = text.trim();
  if (type.includes('json') || /^[{[]/.test(trimmed)) {
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch (error) { /* shown as sent */ }
  }
  if (type.includes('xml') || trimmed.startsWith('<?xml')) {
    const document = new DOMParser().parseFromString(text, 'application/xml');
    if (!document.getElementsByTagName('parsererror').length) return indentXML(document.documentElement, 0).join('\n');
  }
  return text;
}

/// Lines of an XML element, two spaces per level; text stays on its element's line when alone.
function indentXML(node, depth) {
  const pad = '  '.repeat(depth);
  const attributes = Array.from(node.attributes || []).map((a) => ` ${a.name}="${a.value}"`).join('');
  const children = Array.from(node.childNodes).filter((child) => child.nodeType !== Node.TEXT_NODE || child.nodeValue.trim());
  if (!children.length) return [`${pad}<${node.nodeName}${attributes}/>`];
  if (children.length === 1 && children[0].nodeType !== Node.ELEMENT_NODE) {
    return [`${pad}<${node.nodeName}${attributes}>${children[0].nodeValue.trim()}</${node.nodeName}>`];
  }
  const lines = [`${pad}<${node.nodeName}${attributes}>`];
  for (const child of children) {
    if (child.nodeType === Node.ELEMENT_NODE) lines.push(...indentXML(child, depth + 1));
    else lines.push(pad + '  ' + (child.nodeValue || '').trim());
  }
  lines.push(`${pad}</${node.nodeName}>`);
  return lines;
}

// MARK: Copy as curl, save as stub

const skippedHeaders = ['host', 'content-length', 'connection', 'accept-encoding'];

function shellQuoted(text) { return "'" + String(text).replace(/'/g, "'\\''") + "'"; }

function curlCommand(request) {
  const parts = ['curl'];
  if (request.method !== 'GET') parts.push('-X', request.method);
  parts.push(shellQuoted(request.absoluteUrl));
  for (const name of Object.keys(request.headers)) {
    if (skippedHeaders.includes(name.toLowerCase())) continue;
    for (const value of [].concat(request.headers[name])) parts.push('-H', shellQuoted(`${name}: ${value}`));
  }
  if (request.body) parts.push('--data-binary', shellQuoted(request.body));
  return parts.join(' ');
}

$('copy-curl').addEventListener('click', async () => {
  const command = curlCommand(current.request);
  const shown = $('curl-text');
  shown.textContent = command;
  shown.hidden = false;
  try {
    await navigator.clipboard.writeText(command);
    $('copy-curl').textContent = 'Copied';
  } catch (error) {
    $('copy-curl').textContent = 'Select the command below to copy it';
  }
  setTimeout(() => { $('copy-curl').textContent = 'Copy as curl'; }, 2000);
});

const textTypes = /^(text\/|application\/(json|xml|javascript|x-www-form-urlencoded)|[^;]*\+(json|xml))/;

/// A mapping that answers this exchange again: the journaled answer for one something answered,
/// a 200 to fill in for one nothing answered.
function exchangeDraft(event) {
  const request = event.request;
  const mapping = {name: `${request.method} ${request.url.split('?')[0]}`, request: {method: request.method, url: request.url}};
  if (!event.servedBy) {
    mapping.response = {status: 200, headers: {'Content-Type': 'application/json'}, body: '{}'};
    return mapping;
  }
  const headers = {};
  for (const name of Object.keys(event.response.headers)) {
    if (!['date', 'content-length', 'set-cookie', 'connection'].includes(name.toLowerCase())) headers[name] = event.response.headers[name];
  }
  mapping.response = {status: event.response.status, headers};
  // Only the body's start was kept: the draft says so rather than answer with a cut body.
  if (event.responseBodyTruncatedFrom) mapping.metadata = {note: 'the journal kept only the start of this body: fill it in'};
  const type = headerValue(event.response.headers, 'content-type').toLowerCase();
  if (!event.response.bodyAsBase64) return mapping;
  if (!type || textTypes.test(type)) mapping.response.body = event.response.body;
  else mapping.response.base64Body = event.response.bodyAsBase64;
  return mapping;
}

/// A near miss's mapping, changed to match this request's method and URL.
function nearMissDraft(stub) {
  const mapping = JSON.parse(JSON.stringify(stub));
  delete mapping.id;
  delete mapping.uuid;
  mapping.name = (mapping.name ? mapping.name + ' ' : '') + `(for ${current.request.method} ${current.request.url.split('?')[0]})`;
  mapping.request = Object.assign({}, mapping.request);
  for (const key of ['url', 'urlPath', 'urlPattern', 'urlPathPattern', 'queryParameters']) delete mapping.request[key];
  mapping.request.method = current.request.method;
  mapping.request.url = current.request.url;
  return mapping;
}

function draftStub(mapping) {
  $('stub-editor').value = JSON.stringify(mapping, null, 2);
  $('stub-result').textContent = '';
  $('stub-draft').hidden = false;
  $('stub-editor').focus();
}

$('save-stub').addEventListener('click', () => draftStub(exchangeDraft(current)));

$('stub-create').addEventListener('click', async () => {
  const result = $('stub-result');
  result.className = '';
  let created;
  try {
    created = await api('/mappings', {method: 'POST', json: $('stub-editor').value});
  } catch (error) {
    result.className = 'bad';
    result.textContent = 'Not created: ' + error.message;
    return;
  }
  result.textContent = `Created stub ${created.id}. Sending the request again…`;
  const request = current.request;
  if (request.url.startsWith(admin)) return;
  const headers = {};
  const type = headerValue(request.headers, 'content-type');
  if (type) headers['Content-Type'] = type;
  const hasBody = !['GET', 'HEAD'].includes(request.method);
  try {
    const answer = await fetch(request.url, {method: request.method, headers, body: hasBody ? decodeBase64(request.bodyAsBase64) : undefined,
                                             cache: 'no-store', redirect: 'manual'});
    const text = await answer.text();
    result.className = answer.ok ? 'good replay-answer' : 'bad replay-answer';
    result.textContent = `Created stub ${created.id}. The request now answers ${answer.status}` + (text ? `: ${text.slice(0, 200)}` : '');
  } catch (error) {
    result.textContent = `Created stub ${created.id}; sending the request again failed: ${error.message}`;
  }
});

// MARK: Mappings

let mappings = [];
let editing = null;   // the id of the mapping in the editor; null for a new one

$('mapping-search').addEventListener('input', renderMappings);
$('mapping-back').addEventListener('click', () => {
  $('mapping-detail').hidden = true;
  $('view-mappings').classList.remove('showing-detail');
});
$('mapping-new').addEventListener('click', () => editMapping(null,
  {name: 'new stub', request: {method: 'GET', urlPath: '/example'}, response: {status: 200, jsonBody: {hello: 'world'}}}));

async function loadMappings() {
  const body = await api('/mappings');
  mappings = body.mappings || [];
  renderMappings();
}

function mappingLine(mapping) {
  const request = mapping.request || {};
  const target = request.url || request.urlPath || request.urlPattern || request.urlPathPattern || 'any URL';
  return {method: request.method || 'ANY', target, name: mapping.name || ''};
}

function renderMappings() {
  const query = $('mapping-search').value.trim().toLowerCase();
  const shown = mappings.filter((mapping) => !query || JSON.stringify(mapping).toLowerCase().includes(query));
  $('mapping-count').textContent = `${shown.length} of ${mappings.length} mappings`;
  $('mapping-list').replaceChildren(...shown.map((mapping) => {
    const line = mappingLine(mapping);
    const row = el('li', {className: 'mapping-row' + (mapping.id === editing ? ' selected' : '')},
      el('span', {className: 'method', text: line.method}),
      el('span', {className: 'url', text: line.target}),
      el('span', {className: 'meta', text: [line.name, mapping.priority ? `priority ${mapping.priority}` : '', mapping.scenarioName ? `scenario ${mapping.scenarioName}` : '']
        .filter(Boolean).join(' · ')}));
    row.dataset.id = mapping.id;
    row.addEventListener('click', () => editMapping(mapping.id, mapping));
    return row;
  }));
}

function editMapping(id, mapping) {
  editing = id;
  $('mapping-title').textContent = id ? (mapping.name || id) : 'New mapping';
  $('mapping-editor').value = JSON.stringify(mapping, null, 2);
  $('mapping-result').textContent = '';
  $('mapping-delete').hidden = !id;
  $('mapping-detail').hidden = false;
  $('view-mappings').classList.add('showing-detail');
  renderMappings();
}

async function openMappingById(id) {
  showView('mappings');
  try {
    editMapping(id, await api('/mappings/' + encodeURIComponent(id)));
  } catch (error) {
    showError(error);
  }
}

$('mapping-save').addEventListener('click', async () => {
  const result = $('mapping-result');
  try {
    const saved = editing
      ? await api('/mappings/' + encodeURIComponent(editing), {method: 'PUT', json: $('mapping-editor').value})
      : await api('/mappings', {method: 'POST', json: $('mapping-editor').value});
    result.className = 'good';
    result.textContent = 'Saved.';
    await loadMappings();
    editMapping(saved.id, saved);
    result.textContent = 'Saved.';
  } catch (error) {
    result.className = 'bad';
    result.textContent = 'Not saved: ' + error.message;
  }
});

$('mapping-delete').addEventListener('click', async () => {
  if (!editing || !confirm('Delete this mapping?')) return;
  try {
    await api('/mappings/' + encodeURIComponent(editing), {method: 'DELETE'});
    editing = null;
    $('mapping-detail').hidden = true;
    $('view-mappings').classList.remove('showing-detail');
    await loadMappings();
  } catch (error) {
    showError(error);
  }
});

// MARK: Channels

// Every scope's open channels and their last messages, newest first (the admin API's ?scope=*).
async function loadChannels() {
  const [channels, messages] = await Promise.all([api('/channels?scope=*'), api('/messages?scope=*')]);
  const open = channels.channels || [];
  const channelTable = $('channel-table');
  if (!open.length) {
    channelTable.replaceChildren(el('tr', {}, el('td', {className: 'muted', text: 'No channel is open.'})));
  } else {
    channelTable.replaceChildren(el('tr', {}, el('th', {text: 'Channel'}), el('th', {text: 'Opened by'}), el('th', {text: 'From'})),
      ...open.map((channel) => el('tr', {},
        el('td', {className: 'mono', text: channel.id.slice(0, 8), title: channel.id}),
        el('td', {className: 'mono', text: channel.initiatingRequest.method + ' ' + channel.initiatingRequest.url}),
        el('td', {className: 'muted', text: channel.initiatingRequest.clientIp}))));
  }
  const events = (messages.messageServeEvents || []).slice(0, 200);
  const messageTable = $('message-table');
  if (!events.length) return messageTable.replaceChildren(el('tr', {}, el('td', {className: 'muted', text: 'No message yet.'})));
  messageTable.replaceChildren(el('tr', {}, el('th', {text: 'Time'}), el('th', {text: ''}), el('th', {text: 'Message'}), el('th', {text: 'Channel'}), el('th', {text: 'Stub'})),
    ...events.map((event) => el('tr', {},
      el('td', {className: 'mono', text: (event.timestamp || '').slice(11, 23)}),
      el('td', {text: event.eventType === 'sent' ? '→ sent' : '← received'}),
      el('td', {className: 'mono', text: event.message}),
      el('td', {className: 'mono', text: event.channel.id.slice(0, 8), title: event.channel.id}),
      el('td', {className: event.stubMapping || event.eventType === 'sent' ? '' : 'muted',
        text: event.stubMapping ? (event.stubMapping.name || event.stubMapping.id) : (event.eventType === 'sent' ? '' : 'no stub matched')}))));
}

// Channels open and close, and messages come, while the view is shown.
setInterval(() => { if (currentView === 'channels' && !document.hidden) loadChannels().catch(() => {}); }, 1000);

// MARK: Scenarios

async function loadScenarios() {
  const body = await api('/scenarios');
  const scenarios = body.scenarios || [];
  const table = $('scenario-table');
  if (!scenarios.length) return table.replaceChildren(el('tr', {}, el('td', {className: 'muted', text: 'No mapping names a scenario.'})));
  table.replaceChildren(el('tr', {}, el('th', {text: 'Scenario'}), el('th', {text: 'State'}), el('th', {text: 'Possible states'})),
    ...scenarios.map((scenario) => el('tr', {},
      el('td', {text: scenario.name}), el('td', {className: 'mono', text: scenario.state}),
      el('td', {className: 'muted', text: (scenario.possibleStates || []).join(' → ')}))));
}

$('scenarios-reset').addEventListener('click', async () => {
  try {
    await api('/scenarios/reset', {method: 'POST'});
    await loadScenarios();
  } catch (error) {
    showError(error);
  }
});

// MARK: Backends and recording

async function loadBackends() {
  const [body, recording] = await Promise.all([api('/backends'), api('/recordings/status').catch(() => null)]);
  const shown = body.backends.filter((backend) => backend.kind !== 'admin');
  $('backend-cards').replaceChildren(...shown.map((backend) => {
    const counts = el('dl', {className: 'counts'});
    for (const [kind, count] of Object.entries(backend.fixtures)) counts.append(el('dt', {text: kind}), el('dd', {text: count.toLocaleString()}));
    if (backend.cache) {
      const lookups = backend.cache.hits + backend.cache.misses;
      counts.append(el('dt', {text: 'cache hits'}),
        el('dd', {text: lookups ? `${backend.cache.hits} of ${lookups} (${Math.round(100 * backend.cache.hits / lookups)}%)` : 'none yet'}));
    }
    if (backend.recorder) counts.append(el('dt', {text: 'recorded'}), el('dd', {text: backend.recorder.recorded}));
    const card = el('div', {className: 'card backend-card'},
      el('h2', {text: backend.name}),
      el('span', {className: backend.ready ? 'ready' : 'loading', text: backend.ready ? 'ready' : 'loading…'}),
      el('span', {className: 'muted', text: ` · ${backend.kind}`}),
      counts,
      el('details', {},
        el('summary', {text: backend.mounts.length === 1 ? `mounted at ${backend.mounts[0]}` : `${backend.mounts.length} mounts`}),
        el('ul', {className: 'mounts mono'}, ...backend.mounts.map((mount) => el('li', {text: mount})))));
    card.dataset.backend = backend.name;
    return card;
  }));
  const recorder = body.backends.find((backend) => backend.name === 'recorder');
  const status = recording ? recording.status : 'unknown';
  $('recording-status').textContent = `Recording: ${status}` + (recorder && recorder.recorder ? ` · ${recorder.recorder.recorded} exchanges saved since start` : '');
}

$('recording-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  try {
    await api('/recordings/start', {method: 'POST', json: {targetBaseUrl: $('recording-target').value.trim()}});
    $('recording-result').textContent = 'Recording: requests no stub answers go to that server, and its answers are saved.';
    await loadBackends();
  } catch (error) {
    showError(error);
  }
});

$('recording-stop').addEventListener('click', async () => {
  try {
    const body = await api('/recordings/stop', {method: 'POST'});
    $('recording-result').textContent = `Stopped: ${(body.mappings || []).length} mappings recorded.`;
    await loadBackends();
  } catch (error) {
    showError(error);
  }
});

$('reset-state').addEventListener('click', async () => {
  if (!confirm('Reset every backend\'s state in the default scope?')) return;
  try {
    await api('/reset', {method: 'POST'});
    $('reset-result').textContent = 'Reset at ' + new Date().toLocaleTimeString([], {hour12: false});
    await loadBackends();
  } catch (error) {
    showError(error);
  }
});

// The backends' counts move while their view is shown.
setInterval(() => { if (currentView === 'backends' && !document.hidden) loadBackends().catch(() => {}); }, 2000);

follow();
