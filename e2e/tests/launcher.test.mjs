// kubectl glass: the launcher binary (crates/glass, the app inside it) run as
// a person would, with the real kubectl and cluster and real Chromium.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { request, createServer } from 'node:http';
import { lookup } from 'node:dns';
import { existsSync, mkdtempSync, mkdirSync, copyFileSync, rmSync, statSync, writeFileSync, readFileSync, chmodSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { kubectl, launchBrowser, until, freePort, nodeBase, env } from '../lib.mjs';
import { frame } from '../pages.mjs';

// The port the runs are given with --port: free on both loopbacks when
// the file starts (the launcher's own pick is tested where it is).
let PORT;
let browser;
let scratch;

let pluginDir;

before(async () => {
  PORT = await freePort();
  browser = await launchBrowser();
  scratch = mkdtempSync(join(tmpdir(), 'kubeglass-launcher-'));
  // "Installed": the binary as kubectl-glass in a bin folder of its own.
  pluginDir = join(scratch, 'bin');
  state = join(scratch, 'state');
  mkdirSync(pluginDir);
  copyFileSync(env('GLASS'), join(pluginDir, 'kubectl-glass'));
  chmodSync(join(pluginDir, 'kubectl-glass'), 0o755);
});

after(async () => {
  await browser?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * Runs `kubectl glass` as a person would: kubectl finds the plugin on PATH,
 * and PATH holds only the installed plugin and kubectl (no cargo, trunk or
 * node). `kubectlPath` other than the real kubectl runs the binary directly
 * with `--kubectl` (a wrapper, or one that does not exist).
 * Resolves `started` once it printed its URL (or exited).
 */
function glass(args, { kubectlPath = env('KUBECTL'), kubeconfig = env('KUBECONFIG'), open = false, extraEnv = {}, direct = false } = {}) {
  const plugin = !direct && kubectlPath === env('KUBECTL');
  const flags = open ? [] : ['--no-open'];
  const child = plugin
    ? spawn(env('KUBECTL'), ['glass', '--kubeconfig', kubeconfig, ...flags, ...args],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: `${pluginDir}:${dirname(env('KUBECTL'))}`, HOME: process.env.HOME, XDG_STATE_HOME: state, ...extraEnv } })
    : spawn(env('GLASS'), ['--kubectl', kubectlPath, '--kubeconfig', kubeconfig, ...flags, ...args],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, XDG_STATE_HOME: state, ...extraEnv } });
  const run = { child, stdout: '', stderr: '', code: undefined };
  child.stdout.on('data', (d) => { run.stdout += d; });
  child.stderr.on('data', (d) => { run.stderr += d; });
  // 'close', not 'exit': by then stdout and stderr have been read to the end.
  run.exited = new Promise((r) => child.once('close', (code, signal) => { run.code = code; run.signal = signal; r(code); }));
  run.started = (async () => {
    assert.ok(await until(async () => run.code !== undefined || /Private folder: /.test(run.stdout), 30000),
      `kubectl-glass neither started nor exited within 30 s: ${run.stdout} ${run.stderr}`);
    const urls = [...run.stdout.matchAll(/http:\/\/[0-9a-f]{32}\.localhost:(\d+)\/([0-9a-f]{32})\/ui\/\S*/g)].map((m) => m[0]);
    const dir = /Private folder: (\S+)/.exec(run.stdout)?.[1];
    return { urls, dir };
  })();
  return run;
}

const apiOf = (url) => url.slice(0, url.indexOf('/ui/'));
/** The same URL as a program reaches it: 127.0.0.1 (only a browser resolves `<name>.localhost`). */
/** Where the store of the app's preferences goes in these runs (not the user's ~/.local/state). */
let state;

/** `*.localhost` is the loopback, as a browser has it; Node's resolver does not know the name. */
function loopback(host, options, callback) {
  if (!host.endsWith('.localhost')) return lookup(host, options, callback);
  return options?.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4);
}

/** The command lines of every live process on the machine (zombies left out). */
function commandLines() {
  return execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' }).split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('Z'))
    .map((l) => l.trim().replace(/^\S+\s+/, ''));
}

/** A raw HTTP/1.1 request with exactly these headers (fetch would set Host and Origin itself). */
function raw(url, { method = 'GET', headers = {} } = {}) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, setHost: !('Host' in headers), lookup: loopback });
    req.on('response', (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    // A WebSocket handshake the server accepts would end here instead.
    req.on('upgrade', (res, socket) => { socket.destroy(); resolve({ status: res.statusCode, headers: res.headers, body: Buffer.alloc(0) }); });
    req.on('error', reject);
    req.end();
  });
}

/**
 * The front door's rules, checked from outside while `url`'s launcher runs:
 * no token in any command line, kubectl on the private socket, our Host
 * only, our own origin only, 404 without the token (upgrades too), and the
 * app's security headers.
 */
async function frontDoorHolds(url, dir) {
  const token = new URL(url).pathname.split('/')[1];
  const { port, host } = new URL(url);
  const lines = commandLines();
  assert.ok(lines.some((l) => l.includes(' proxy ') && l.includes(`--unix-socket=${dir}/`)),
    `kubectl proxy listens on the private socket: ${lines.filter((l) => l.includes('proxy')).join('\n')}`);
  assert.deepEqual(lines.filter((l) => l.includes(token)), [], 'the token is in no command line');
  const api = apiOf(url);
  assert.equal((await raw(`${api}/version`, { headers: { Host: `evil.example:${port}` } })).status, 421, 'DNS rebinding');
  assert.equal((await raw(`${api}/version`, { headers: { Origin: 'http://127.0.0.1:8080' } })).status, 403, 'another origin');
  assert.equal((await raw(`${api}/version`, { headers: { 'Sec-Fetch-Site': 'same-site' } })).status, 403, 'another port');
  assert.equal((await raw(`${api}/version`, { headers: { Origin: `http://${host}`, 'Sec-Fetch-Site': 'same-origin' } })).status, 200, 'our page');
  assert.equal((await raw(`${api}/version`, { headers: { Origin: `http://127.0.0.1:${port}`, 'Sec-Fetch-Site': 'same-origin' } })).status, 403, 'the address as an origin');
  assert.equal((await raw(`${nodeBase(api)}/version`, { headers: { 'Sec-Fetch-Site': 'none', 'Sec-Fetch-Dest': 'document' } })).status, 421, 'a browser at the address');
  assert.equal((await raw(`${nodeBase(api)}/version`)).status, 200, 'a program at the address');
  assert.equal((await raw(`http://localhost:${port}/${token}/version`, { headers: { Host: `localhost:${port}` } })).status, 421, 'localhost');
  const upgrade = { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' };
  assert.equal((await raw(`http://127.0.0.1:${port}/api/v1/pods?watch=1`, { headers: upgrade })).status, 404, 'an upgrade without the token');
  const wrong = `${token.slice(0, 31)}${token.endsWith('0') ? '1' : '0'}`;
  assert.equal((await raw(`http://127.0.0.1:${port}/${wrong}/api/v1/pods?watch=1`, { headers: upgrade })).status, 404, 'a wrong token');
  // (The API server's WebSocket handler wants an Origin; a browser sends it.)
  assert.equal((await raw(`${api}/api/v1/pods?watch=1`, { headers: { ...upgrade, Origin: `http://${host}` } })).status, 101,
    'an upgrade with it');
  const index = await raw(url, { headers: { 'Accept-Encoding': 'gzip, br' } });
  assert.equal(index.status, 200);
  assert.equal(index.headers['content-encoding'], 'br');
  const csp = index.headers['content-security-policy'] ?? '';
  for (const d of ["frame-ancestors 'none'", "worker-src 'none'", "object-src 'none'", "default-src 'self'"]) {
    assert.ok(csp.includes(d), `${d} in ${csp}`);
  }
  assert.match(csp, /script-src 'self' 'wasm-unsafe-eval' 'sha256-[A-Za-z0-9+/=]+'/);
  for (const [h, v] of [['x-content-type-options', 'nosniff'], ['referrer-policy', 'no-referrer'],
    ['cross-origin-opener-policy', 'same-origin'], ['cross-origin-resource-policy', 'same-origin'], ['cache-control', 'no-store']]) {
    assert.equal(index.headers[h], v, h);
  }
}

test('kubectl glass serves the app for the context, names it in the header, and cleans up on SIGTERM', async () => {
  const run = glass(['--port', String(PORT)]);
  // Whatever fails below, the launcher does not outlive the test.
  after(() => run.child.kill('SIGKILL'));
  const { urls, dir } = await run.started;
  assert.equal(run.code, undefined, `exited early: ${run.stderr}`);
  assert.equal(urls.length, 1, run.stdout);
  const url = urls[0];
  assert.match(url, new RegExp(`^http://[0-9a-f]{32}\\.localhost:${PORT}/`), 'an origin of its own, on the given port');
  assert.match(run.stdout, /context "admin@kubeglass-local" \(cluster "kubeglass-local"\)/);
  assert.equal(statSync(dir).mode & 0o777, 0o700, 'the app folder is private');
  // The capability URL: nothing without the token.
  assert.equal((await fetch(`http://127.0.0.1:${PORT}/version`)).status, 404);
  assert.equal((await fetch(`${nodeBase(apiOf(url))}/version`)).status, 200);
  await frontDoorHolds(url, dir);
  const { page } = browser;
  const responses = [];
  const seen = (r) => responses.push(r);
  page.on('response', seen);
  await page.goto(url);
  await frame(page).ready();
  page.off('response', seen);
  // The wasm came compressed at build time, as wasm (so it compiles while
  // it downloads), cached for good under its hashed name.
  const wasm = responses.find((r) => r.url().endsWith('.wasm'));
  assert.ok(wasm, 'the wasm was fetched');
  const wh = await wasm.allHeaders();
  assert.equal(wh['content-encoding'], 'br', 'brotli');
  assert.equal(wh['content-type'], 'application/wasm');
  assert.match(wh['cache-control'], /immutable/);
  // A watch streams over WebSocket through the door.
  const api = apiOf(url);
  const watched = await page.evaluate((wsUrl) => new Promise((resolve) => {
    const ws = new WebSocket(wsUrl);
    ws.onmessage = (m) => { ws.close(); resolve(String(m.data).slice(0, 30)); };
    ws.onerror = () => resolve('error');
  }), `${api.replace('http:', 'ws:')}/api/v1/namespaces/demo-shop/configmaps?watch=1`);
  assert.match(watched, /^\{"type":"ADDED"/);
  assert.equal(await page.getByTestId('session-context').innerText(), 'admin@kubeglass-local · kubeglass-local');
  assert.equal(await page.getByTestId('read-only-badge').count(), 0);
  await page.goto(`${url}#/o/deployments.apps/demo-shop/frontend`);
  await page.getByTestId('action-delete').waitFor({ timeout: 20000 });
  assert.equal(await page.getByTestId('session-context').count(), 1, 'on every page');

  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0, run.stderr);
  assert.ok(!existsSync(dir), 'the app folder is removed');
  await assert.rejects(fetch(`${nodeBase(apiOf(url))}/version`), 'the proxy is gone');
});

test('--read-only: the proxy refuses every write, and the app shows a badge and no actions', async () => {
  // A context that names a namespace (the demo's do not): the app opens there.
  const named = join(scratch, 'named.kubeconfig');
  copyFileSync(env('KUBECONFIG'), named);
  execFileSync(env('KUBECTL'), ['--kubeconfig', named, 'config', 'set-context', '--current', '--namespace=demo-batch']);
  const run = glass(['--port', String(PORT), '--read-only'], { kubeconfig: named });
  const { urls } = await run.started;
  assert.equal(run.code, undefined, `exited early: ${run.stderr}`);
  const api = nodeBase(apiOf(urls[0]));
  try {
    const name = `read-only-probe-${Date.now() % 1000000}`;
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'patch']) { // 'patch': fetch normalizes the case of POST, PUT and DELETE, not PATCH
      const path = method.toUpperCase() === 'POST' ? '/api/v1/namespaces/demo-shop/configmaps' : `/api/v1/namespaces/demo-shop/configmaps/${name}`;
      const r = await fetch(api + path, { method, headers: { 'content-type': 'application/json' },
        body: method === 'DELETE' ? undefined : JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }) });
      assert.equal(r.status, 403, `${method} answered ${r.status}`);
    }
    assert.equal((await fetch(`${api}/api/v1/namespaces/demo-shop/configmaps`)).status, 200, 'reads still work');
    assert.equal((await fetch(`${api}/api/v1/namespaces/demo-shop/pods?watch=1&timeoutSeconds=1`)).status, 200, 'and watches');
    // An allowlist, whatever the method: connect-style subresources (an
    // aggregated API's console, which kubectl proxy would pass on) and exec.
    for (const path of ['/apis/subresources.kubevirt.io/v1/namespaces/demo-shop/virtualmachineinstances/vm/console',
      '/apis/apps/v1/namespaces/demo-shop/deployments/frontend/rollback']) {
      const r = await fetch(api + path);
      assert.equal(r.status, 403, `GET ${path} answered ${r.status}`);
      assert.match(await r.text(), /^read-only: the (console|rollback) subresource is not a read$/);
    }
    const exec = await fetch(`${api}/api/v1/namespaces/demo-shop/pods/x/exec?command=sh`);
    assert.equal(exec.status, 403);
    assert.match(await exec.text(), /^a shell \(pods\/<name>\/exec\) is refused: this run was started with --read-only or --no-exec$/);
    assert.equal(kubectl('-n', 'demo-shop', 'get', 'configmap', name, '--ignore-not-found').trim(), '', 'nothing was written');

    const { page } = browser;
    await page.goto(`${urls[0]}#/o/deployments.apps/demo-shop/frontend`);
    await page.getByTestId('object-title').waitFor({ timeout: 20000 });
    assert.equal(await page.getByTestId('read-only-badge').innerText(), 'read-only');
    assert.match(await page.getByTestId('no-actions').innerText(), /read-only/);
    assert.equal(await page.getByTestId('object-actions').locator('button').count(), 0, 'no action buttons');
    await page.goto(urls[0]);
    // The app opens in the context's namespace.
    assert.ok(await until(async () => (await page.getByTestId('namespace-input').inputValue()) === 'demo-batch', 10000),
      'the context namespace');
    await page.getByTestId('namespace-input').fill('demo-shop');
    await page.getByTestId('namespace-input').press('Enter');
    await page.getByTestId('deployment-row').first().waitFor({ timeout: 20000 });
    assert.equal(await page.getByTestId('deployment-row').first().locator('button').count(), 0, 'none on the overview');
  } finally {
    run.child.kill('SIGTERM');
    await run.exited;
  }
});

test('every run has an origin nobody has visited before, and -n opens that namespace\'s pods', async () => {
  const origins = [];
  for (let i = 0; i < 2; i++) {
    const run = glass(['-n', 'demo-shop']);
    const { urls, dir } = await run.started;
    assert.equal(run.code, undefined, `exited early: ${run.stderr}`);
    assert.match(urls[0], /\/ui\/#\/r\/pods\?ns=demo-shop$/);
    origins.push(new URL(urls[0]).origin);
    assert.ok(dir && existsSync(dir));
    run.child.kill('SIGINT');
    assert.equal(await run.exited, 0);
    assert.ok(!existsSync(dir), 'SIGINT removes the app folder');
    await assert.rejects(fetch(`${nodeBase(apiOf(urls[0]))}/version`), 'and stops the proxy');
  }
  assert.notEqual(origins[0], origins[1]);
  for (const o of origins) assert.match(o, /^http:\/\/[0-9a-f]{32}\.localhost:\d+$/);
});

test('a bad context or kubeconfig prints a clear message and exits non-zero', async () => {
  const bad = glass(['--context', 'nope']);
  assert.notEqual(await bad.exited, 0);
  assert.match(bad.stderr, /cannot locate context nope/, 'kubectl\'s own message');
  const missing = glass([], { kubeconfig: join(scratch, 'absent.kubeconfig') });
  assert.notEqual(await missing.exited, 0);
  assert.match(missing.stderr, /absent\.kubeconfig: no such file/);
  const noKubectl = glass([], { kubectlPath: join(scratch, 'no-kubectl') });
  assert.notEqual(await noKubectl.exited, 0);
  assert.match(noKubectl.stderr, /cannot run .*no-kubectl/);
});

test('kubectl exiting stops the launcher and removes its folder', async () => {
  // A kubectl that records the proxy's pid, so the test can kill it.
  const pidFile = join(scratch, 'proxy.pid');
  const wrapper = join(scratch, 'kubectl-wrapper');
  writeFileSync(wrapper, `#!/bin/sh\ncase " $* " in *" proxy "*) echo $$ > '${pidFile}';; esac\nexec '${env('KUBECTL')}' "$@"\n`);
  chmodSync(wrapper, 0o755);
  const run = glass(['--port', String(PORT)], { kubectlPath: wrapper });
  const { dir } = await run.started;
  assert.equal(run.code, undefined, `exited early: ${run.stderr}`);
  assert.ok(dir && existsSync(dir), `the app folder is printed and exists: ${run.stdout}`);
  process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 'SIGKILL');
  assert.notEqual(await run.exited, 0);
  assert.match(run.stderr, /exited/);
  assert.ok(!existsSync(dir), 'the app folder is removed');
});

test('--all-contexts starts one proxy per context and prints a table', async () => {
  // Two contexts with two cluster identities (the same server under a
  // second cluster name), as a kubeconfig with prod and staging has.
  const kc = join(scratch, 'two.kubeconfig');
  const config = JSON.parse(kubectl('config', 'view', '--raw', '-o', 'json'));
  config.clusters.push({ ...config.clusters[0], name: 'second-cluster' });
  writeFileSync(kc, JSON.stringify(config));
  execFileSync(env('KUBECTL'), ['--kubeconfig', kc, 'config', 'set-context', 'second',
    '--cluster=second-cluster', '--user=admin', '--namespace=demo-shop']);
  const run = glass(['--all-contexts'], { kubeconfig: kc });
  const { urls } = await run.started;
  try {
    assert.equal(run.code, undefined, `exited early: ${run.stderr}`);
    assert.match(run.stdout, /^CONTEXT\s+URL$/m);
    assert.equal(urls.length, 2, run.stdout);
    assert.notEqual(new URL(urls[0]).port, new URL(urls[1]).port, 'separate origins');
    for (const u of urls) assert.equal((await fetch(`${nodeBase(apiOf(u))}/version`)).status, 200);
    const { page } = browser;
    const shown = [];
    for (const u of urls) {
      await page.goto(u);
      await frame(page).ready();
      shown.push(await page.getByTestId('session-context').innerText());
    }
    assert.deepEqual(shown.sort(), ['admin@kubeglass-local · kubeglass-local', 'second · second-cluster'],
      'each tab names its own context and cluster');
  } finally {
    run.child.kill('SIGINT');
    await run.exited;
  }
  for (const u of urls) await assert.rejects(fetch(`${nodeBase(apiOf(u))}/version`));
});

test('a page on another origin cannot read, watch or write through the launcher, even knowing the token', async () => {
  const run = glass(['--port', String(PORT)]);
  const { urls } = await run.started;
  assert.equal(run.code, undefined, `exited early: ${run.stderr}`);
  // The other tab: a page on another port of 127.0.0.1 (same site, another origin).
  const evil = createServer((req, res) => { res.setHeader('content-type', 'text/html'); res.end('<title>elsewhere</title>'); });
  await new Promise((r) => evil.listen(0, '127.0.0.1', r));
  const name = `cross-origin-probe-${Date.now() % 1000000}`;
  try {
    const { page } = browser;
    await page.goto(`http://127.0.0.1:${evil.address().port}/`);
    const api = apiOf(urls[0]);
    const tried = await page.evaluate(async ({ api, name }) => {
      const out = {};
      // A write the browser sends without asking (a "simple" request).
      await fetch(`${api}/api/v1/namespaces/demo-shop/configmaps`, {
        method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }),
      }).catch(() => {});
      // A watch over WebSocket: the same-origin policy does not cover it.
      out.socket = await new Promise((resolve) => {
        const ws = new WebSocket(`${api.replace('http:', 'ws:')}/api/v1/namespaces/demo-shop/configmaps?watch=1`);
        ws.onmessage = () => { ws.close(); resolve('read'); };
        ws.onerror = () => resolve('refused');
      });
      out.read = await fetch(`${api}/api/v1/namespaces/demo-shop/configmaps`).then((r) => r.status, () => 'refused');
      return out;
    }, { api, name });
    assert.deepEqual(tried, { socket: 'refused', read: 'refused' });
    assert.equal(kubectl('-n', 'demo-shop', 'get', 'configmap', name, '--ignore-not-found').trim(), '', 'nothing was written');
  } finally {
    evil.close();
    run.child.kill('SIGTERM');
    await run.exited;
  }
});

test('a Service Worker planted where Kubeglass ran before never sees a run: every run has an origin of its own', async () => {
  // Another program held the port first and served a page that registered
  // a worker on 127.0.0.1:port and on localhost:port: it passes every
  // request through and reports each URL it sees.
  const squat = await freePort();
  const seen = [];
  const spy = createServer((req, res) => { seen.push(decodeURIComponent(req.url.slice(1))); res.end(); });
  await new Promise((r) => spy.listen(0, '127.0.0.1', r));
  const worker = `self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (e) => {
  fetch('http://127.0.0.1:${spy.address().port}/' + encodeURIComponent(e.request.url), { mode: 'no-cors' }).catch(() => {});
  e.respondWith(fetch(e.request));
});`;
  const planter = createServer((req, res) => {
    if (req.url === '/sw.js') {
      res.setHeader('content-type', 'text/javascript');
      res.end(worker);
    } else {
      res.setHeader('content-type', 'text/html');
      res.end('<script>navigator.serviceWorker.register("/sw.js").then(() => navigator.serviceWorker.ready).then(() => { document.title = "planted"; });</script>');
    }
  });
  await new Promise((r) => planter.listen(squat, '127.0.0.1', r));
  const { page } = browser;
  try {
    for (const host of ['127.0.0.1', 'localhost']) {
      await page.goto(`http://${host}:${squat}/`);
      assert.ok(await until(async () => (await page.title()) === 'planted', 15000), `the worker is registered on ${host}`);
    }
  } finally {
    // The browser keeps its connection alive: drop it, or close waits for it.
    const closed = new Promise((r) => planter.close(r));
    planter.closeAllConnections();
    await closed;
  }
  await page.goto('about:blank');
  // Kubeglass starts on that port later.
  const run = glass(['--port', String(squat)]);
  try {
    const { urls } = await run.started;
    assert.equal(run.code, undefined, `exited early: ${run.stderr}`);
    const token = new URL(urls[0]).pathname.split('/')[1];
    await page.goto(urls[0]);
    await frame(page).ready();
    assert.equal(await page.getByTestId('haunted').count(), 0);
    assert.equal(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length), 0,
      'no worker on the run\'s origin');
    // The worker is alive and reporting: a page of its own origin now
    // (the launcher answers it, through the worker, that a browser must use the printed URL).
    await page.goto(`http://127.0.0.1:${squat}/after-the-run`).catch(() => {});
    assert.ok(await until(async () => seen.some((u) => u.endsWith('/after-the-run')), 15000), `the worker still reports: ${seen}`);
    assert.match(await page.locator('body').innerText(), /open the URL kubectl glass printed/);
    // …and it never saw the run: not the token, not one request of the app.
    assert.deepEqual(seen.filter((u) => u.includes(token) || u.includes('.localhost')), [], 'the worker saw the run');
    assert.equal(run.code, undefined, 'the launcher runs on');
  } finally {
    spy.close();
    if (run.code === undefined) {
      run.child.kill('SIGTERM');
      await run.exited;
    }
    await page.goto('about:blank');
  }
});

test('the app remembers its preferences per context from run to run, in a file only this user reads, and the browser keeps nothing', async () => {
  const home = join(scratch, 'state-remembered');
  const folder = join(home, 'kubeglass', 'contexts');
  const { page } = browser;
  const theme = () => page.evaluate(() => document.documentElement.getAttribute('data-theme'));
  let first;
  const run = glass(['--port', String(PORT)], { extraEnv: { XDG_STATE_HOME: home } });
  try {
    const { urls } = await run.started;
    assert.equal(run.code, undefined, `exited early: ${run.stderr}`);
    first = urls[0];
    await page.goto(first);
    await frame(page).ready();
    assert.equal(await theme(), null, 'the system theme to start with');
    await page.getByTestId('theme-toggle').click();
    assert.equal(await theme(), 'light');
    const file = () => readdirSync(folder).filter((f) => f.endsWith('.json')).map((f) => join(folder, f))[0];
    assert.ok(await until(async () => existsSync(folder) && file() && readFileSync(file(), 'utf8').includes('"kubeglass.theme":"light"'), 10000),
      'the launcher wrote the store');
    assert.equal(statSync(file()).mode & 0o777, 0o600);
    assert.equal(statSync(folder).mode & 0o777, 0o700);
    const text = readFileSync(file(), 'utf8');
    assert.ok(!text.includes(new URL(first).pathname.split('/')[1]), 'the token is not in the store');
    assert.ok(text.includes('kubeglass.discovery.v2 '), 'the discovery cache is kept there too');
    assert.equal(await page.evaluate(() => localStorage.length), 0, 'the browser keeps nothing');
  } finally {
    run.child.kill('SIGTERM');
    await run.exited;
  }
  const again = glass(['--port', String(PORT)], { extraEnv: { XDG_STATE_HOME: home } });
  try {
    const { urls } = await again.started;
    assert.equal(again.code, undefined, `exited early: ${again.stderr}`);
    assert.notEqual(new URL(urls[0]).origin, new URL(first).origin, 'another origin');
    await page.goto(urls[0]);
    await frame(page).ready();
    assert.equal(await theme(), 'light', 'the theme chosen in the first run');
    assert.equal(await page.getByTestId('theme-toggle').innerText(), '☀ light');
  } finally {
    again.child.kill('SIGTERM');
    await again.exited;
    await page.goto('about:blank');
  }
});

test('the browser is opened through a private redirect file: no token in its command line', async () => {
  const fake = join(scratch, 'fake-open');
  mkdirSync(fake, { recursive: true });
  const log = join(fake, 'log');
  // A stand-in for xdg-open: records its arguments, the file's mode and text.
  writeFileSync(join(fake, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$*" > '${log}.args'\nstat -c %a "$1" > '${log}.mode'\ncp "$1" '${log}.html'\n`);
  chmodSync(join(fake, 'xdg-open'), 0o755);
  const run = glass(['--port', String(PORT)], { open: true, direct: true, extraEnv: { PATH: `${fake}:${process.env.PATH}`, DISPLAY: ':99' } });
  try {
    const { urls } = await run.started;
    assert.equal(run.code, undefined, `exited early: ${run.stderr}`);
    assert.ok(await until(async () => existsSync(`${log}.html`), 10000), `the browser was asked to open something: ${run.stderr}`);
    const token = new URL(urls[0]).pathname.split('/')[1];
    const args = readFileSync(`${log}.args`, 'utf8').trim();
    assert.ok(!args.includes(token), `the token is not in the browser's command line: ${args}`);
    assert.equal(readFileSync(`${log}.mode`, 'utf8').trim(), '600');
    const html = readFileSync(`${log}.html`, 'utf8');
    assert.ok(html.includes(urls[0]), html);
    assert.ok(existsSync(args), 'the file is there until the app is fetched');
    const { page } = browser;
    await page.goto(`file://${args}`);
    await page.getByTestId('server-version').waitFor({ timeout: 20000 }).catch(async (e) => {
      throw new Error(`${e.message}\n  at ${page.url()}: ${(await page.content()).slice(0, 300)}`);
    });
    assert.ok(await until(async () => !existsSync(args), 5000), 'and removed once the browser has it');
  } finally {
    run.child.kill('SIGTERM');
    await run.exited;
  }
});

test('no kubectl and no folder outlive the launcher, however it ends', async () => {
  for (const how of ['SIGHUP', 'SIGKILL', 'SIGABRT', 'a broken pipe']) {
    const tmp = mkdtempSync(join(scratch, 'tmp-'));
    const run = glass(['--port', String(PORT)], { direct: true, extraEnv: { TMPDIR: tmp } });
    if (how === 'a broken pipe') {
      // `kubectl glass | head -0`: the reader is gone before the URL is written.
      run.child.stdout.destroy();
      await run.exited;
      assert.match(run.stderr, /standard output is closed/, `${how}: ${run.stderr}`);
    } else {
      const { dir } = await run.started;
      assert.equal(run.code, undefined, `exited early: ${run.stderr}`);
      assert.ok(dir.startsWith(tmp), dir);
      assert.ok(commandLines().some((l) => l.includes(' proxy ') && l.includes(tmp)), 'kubectl proxy runs');
      run.child.kill(how);
      await run.exited;
    }
    const left = () => commandLines().filter((l) => l.includes(tmp));
    assert.ok(await until(async () => left().length === 0 && readdirSync(tmp).length === 0, 10000),
      `${how}: left behind ${JSON.stringify(left())} and ${JSON.stringify(readdirSync(tmp))}`);
  }
});

test('kubectl glass | head -n 1, or head -c 1: the run ends once head has gone, kubectl and the folder with it', async () => {
  // head leaves after the heading's last write, so no write of the
  // launcher fails: it has to notice the reader has gone by itself.
  for (const head of ['head -n 1', 'head -c 1']) {
    const tmp = mkdtempSync(join(scratch, 'tmp-'));
    const pidFile = join(scratch, `pid-${Date.now()}`);
    const child = spawn('/bin/sh', ['-c', `{ "$@" & echo $! >"$PID_FILE"; wait $!; } | ${head}`, 'sh',
      env('GLASS'), '--kubectl', env('KUBECTL'), '--kubeconfig', env('KUBECONFIG'), '--no-open', '--port', String(PORT)],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TMPDIR: tmp, PID_FILE: pidFile } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; });
    let ended = false;
    child.once('close', () => { ended = true; });
    // The pipeline ends when both its sides have: head at once, the launcher once it notices.
    const stopped = await until(async () => ended, 30000);
    if (!stopped && existsSync(pidFile)) process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGTERM');
    assert.ok(stopped, `${head}: the launcher still runs 30 s after head left (head printed ${JSON.stringify(out)}); ${err}`);
    assert.ok(out.length > 0 && 'Kubeglass'.startsWith(out.slice(0, 9)), `${head} printed ${JSON.stringify(out)}`);
    assert.match(err, /standard output is closed; stopping/, `${head}: ${err}`);
    const left = () => commandLines().filter((l) => l.includes(tmp));
    assert.ok(await until(async () => left().length === 0 && readdirSync(tmp).length === 0, 10000),
      `${head}: left behind ${JSON.stringify(left())} and ${JSON.stringify(readdirSync(tmp))}`);
  }
});
