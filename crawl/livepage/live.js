// amber's live page: polls /status every second and steers the crawl with POST /control.
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

async function poll() {
  try {
    const res = await fetch('/status', {cache: 'no-store'});
    if (!res.ok) throw new Error('/status: HTTP ' + res.status);
    show(await res.json());
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
