// amber's live page: polls /live.json every second and steers the crawl with POST /control.
'use strict';

// Errors of the page itself are kept in window.amberErrors and shown at the bottom.
window.amberErrors = [];
function pageError(msg) {
  window.amberErrors.push(String(msg));
  const list = document.getElementById('error-list');
  if (list) {
    const li = document.createElement('li');
    li.textContent = String(msg);
    list.appendChild(li);
    document.getElementById('errors').hidden = false;
  }
}
window.addEventListener('error', (e) => pageError(e.message || 'error'));
document.addEventListener('securitypolicyviolation', (e) => pageError('blocked by the page policy: ' + e.violatedDirective + ' ' + e.blockedURI));
window.addEventListener('unhandledrejection', (e) => pageError('unhandled rejection: ' + (e.reason && e.reason.message || e.reason)));
const consoleError = console.error.bind(console);
console.error = (...args) => { pageError(args.join(' ')); consoleError(...args); };

// The token /control asks for when the server is not on loopback: given as /?token=..., kept
// in memory only, and taken out of the address bar.
const params = new URLSearchParams(location.search);
const token = params.get('token') || '';
if (token) {
  history.replaceState(null, '', location.pathname);
}

const $ = (id) => document.getElementById(id);
const points = []; // [{fetched, queued}], the last maxPoints polls
const maxPoints = 600;

function humanBytes(n) {
  if (n < 1024) return n + ' B';
  const units = 'KMGTPE';
  let i = -1;
  do { n /= 1024; i++; } while (n >= 1024 && i < units.length - 1);
  return n.toFixed(1) + ' ' + units[i] + 'iB';
}

function humanDuration(s) {
  s = Math.round(s);
  const h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60), sec = s % 60;
  return (h ? h + 'h' : '') + (h || m ? m + 'm' : '') + sec + 's';
}

function show(s) {
  const f = s.frontier || {};
  $('collection').textContent = s.collection || '';
  $('dir').textContent = s.dir || '';
  $('fetched').textContent = s.urls_fetched;
  $('queued').textContent = f.Queued || 0;
  $('inflight').textContent = f.InFlight || 0;
  $('failed').textContent = f.Failed || 0;
  $('rejected').textContent = f.Rejected || 0;
  $('rate').textContent = (s.urls_per_second || 0).toFixed(1) + ' URLs/s';
  $('bytes').textContent = humanBytes(s.bytes || 0);
  $('elapsed').textContent = humanDuration(s.elapsed_seconds || 0);
  $('paused').textContent = s.paused ? 'yes' : 'no';
  $('paused').className = s.paused ? 'yes' : 'no';
  points.push({fetched: s.urls_fetched || 0, queued: f.Queued || 0});
  if (points.length > maxPoints) points.shift();
  drawChart();
}

function drawChart() {
  const w = 600, h = 200;
  const max = Math.max(1, ...points.map((p) => Math.max(p.fetched, p.queued)));
  const n = points.length;
  const pts = (key) => points.map((p, i) => {
    const x = n === 1 ? w : i * w / (n - 1);
    const y = h - p[key] * (h - 4) / max;
    return x.toFixed(1) + ',' + y.toFixed(1);
  }).join(' ');
  $('line-fetched').setAttribute('points', pts('fetched'));
  $('line-queued').setAttribute('points', pts('queued'));
  $('chart-max').textContent = '(top: ' + max + ')';
}

// fill replaces the rows of table id's body with one row per item, cells made by cells(item):
// [text, numeric?] pairs. A cell's whole text is its title too (long URLs are cut).
function fill(id, items, cells) {
  const body = $(id).tBodies[0];
  const rows = [];
  for (const it of items) {
    const tr = document.createElement('tr');
    for (const [text, numeric] of cells(it)) {
      const td = document.createElement('td');
      td.textContent = String(text);
      td.title = String(text);
      if (numeric) td.className = 'n';
      tr.appendChild(td);
    }
    rows.push(tr);
  }
  body.replaceChildren(...rows);
}

const svgNS = 'http://www.w3.org/2000/svg';

// drawTimeline draws the bars of captured (under) and failed URLs per interval.
function drawTimeline(ivs, seconds) {
  const w = 600, h = 160;
  const svg = $('timeline');
  const max = Math.max(1, ...ivs.map((iv) => iv.captured + iv.failed));
  const bw = w / Math.max(ivs.length, 1);
  const bars = [];
  ivs.forEach((iv, i) => {
    let y = h;
    for (const [cls, n] of [['captured', iv.captured], ['failed', iv.failed]]) {
      if (!n) continue;
      const bh = Math.max(1, n * (h - 4) / max);
      y -= bh;
      const r = document.createElementNS(svgNS, 'rect');
      r.setAttribute('class', cls);
      r.setAttribute('x', (i * bw).toFixed(1));
      r.setAttribute('y', y.toFixed(1));
      r.setAttribute('width', Math.max(bw - 1, 1).toFixed(1));
      r.setAttribute('height', bh.toFixed(1));
      const t = document.createElementNS(svgNS, 'title');
      t.textContent = iv.start + ': ' + iv.captured + ' captured, ' + iv.failed + ' failed, ' + humanBytes(iv.bytes);
      r.appendChild(t);
      bars.push(r);
    }
  });
  svg.replaceChildren(...bars);
  $('timeline-interval').textContent = seconds ? humanDuration(seconds) : '–';
  $('timeline-max').textContent = '(top: ' + max + ' URLs)';
}

// showLive shows /live.json: the figures, and what report.html shows so far.
function showLive(v) {
  show(v.status);
  drawTimeline(v.timeline || [], v.interval_seconds || 0);
  fill('hosts', v.hosts || [], (h) => [[h.host], [h.urls, 1], [h.queued, 1], [h.captured, 1], [h.failed, 1], [h.left_out, 1]]);
  $('host-count').textContent = '(' + (v.host_count || 0) + ' in this run' + ((v.host_count || 0) > (v.hosts || []).length ? ', the top ' + v.hosts.length + ' shown' : '') + ')';
  const codes = Object.entries(v.status.statuses || {}).sort((a, b) => b[1] - a[1] || Number(a[0]) - Number(b[0]));
  fill('codes', codes, ([code, n]) => [[code], [n, 1]]);
  fill('scope', v.scope || [], (r) => [[r.reason], [r.urls, 1]]);
  fill('current', v.current || [], (c) => [[humanDuration(c.seconds), 1], [c.host], [c.url]]);
  $('current-count').textContent = '(' + (v.current || []).length + ')';
}

async function poll() {
  try {
    const res = await fetch('/live.json', {cache: 'no-store'});
    if (!res.ok) throw new Error('/live.json: HTTP ' + res.status);
    showLive(await res.json());
    $('conn').textContent = 'live';
    $('conn').className = 'up';
  } catch (e) {
    // The run has ended, or the server is not answering: not an error of the page.
    $('conn').textContent = 'not answering (' + e.message + ')';
    $('conn').className = 'down';
  }
  setTimeout(poll, 1000);
}

// send posts one control request and shows the answer in out.
async function send(command, args, out) {
  out.textContent = '…';
  out.className = '';
  const headers = {'Content-Type': 'application/json', 'X-Amber-Control': '1'};
  if (token) headers['X-Amber-Token'] = token;
  let text;
  try {
    const res = await fetch('/control', {method: 'POST', headers, body: JSON.stringify({command, args})});
    const body = await res.json();
    if (body.ok) {
      text = 'ok';
      if (body.status) show(body.status);
    } else {
      text = 'error: ' + (body.error || 'HTTP ' + res.status);
    }
  } catch (e) {
    text = 'error: ' + e.message;
  }
  out.textContent = command + ': ' + text;
  out.className = text === 'ok' ? 'ok' : 'err';
}

for (const b of document.querySelectorAll('button[data-command]')) {
  b.addEventListener('click', () => {
    if (b.dataset.confirm && !window.confirm(b.dataset.confirm)) return;
    send(b.dataset.command, [], $('ans-buttons'));
  });
}
for (const f of document.querySelectorAll('form[data-command]')) {
  f.addEventListener('submit', (e) => {
    e.preventDefault();
    const args = [];
    for (let i = 0; f.elements['a' + i]; i++) args.push(f.elements['a' + i].value.trim());
    send(f.dataset.command, args, f.querySelector('output'));
  });
}
poll();
