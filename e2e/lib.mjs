// Helpers for the end-to-end tests: the app through the real kubectl-glass
// launcher (or, for the tests about kubectl proxy itself, a real `kubectl
// proxy` serving the built app), real Chromium (Debian's, never a downloaded
// one), real kubectl.
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import https from 'node:https';
import { join } from 'node:path';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from './chromium.mjs';

export const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the e2e tests through \`make test\``);
  return v;
};

/**
 * A port free on both loopbacks (127.0.0.1 and [::1]) now, asked of the
 * system: for a server a test starts itself on a port it must know first
 * (a launcher given `--port`, a squatter). The app and kubectl proxy pick
 * their own when given none, so most tests never name a port; none is kept
 * in a table, so no two files can pick the same one.
 */
export async function freePort() {
  const listen = (port, host) => new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(port, host, () => resolve(s));
  });
  const close = (s) => new Promise((r) => s.close(r));
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const v4 = await listen(0, '127.0.0.1');
    const { port } = v4.address();
    const v6 = await listen(port, '::1').catch(() => null);
    await close(v4);
    if (v6) {
      await close(v6);
      return port;
    }
  }
  throw new Error('no port was free on both 127.0.0.1 and [::1] in 20 tries');
}

/** Starts `server` (an http or net server) on a port of its own on 127.0.0.1; resolves to the port. */
export function listenAnywhere(server) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server.address().port));
  });
}

/**
 * `base` as Node reaches it: kubectl glass prints a `<name>.localhost`
 * that only a browser resolves by itself, and answers programs on
 * 127.0.0.1 at the same port. The page keeps using `base`.
 */
export function nodeBase(base) {
  const u = new URL(base);
  if (!u.hostname.endsWith('.localhost')) return base;
  u.hostname = '127.0.0.1';
  return u.href.replace(/\/$/, '');
}

export const KUBECTL = () => env('KUBECTL');
export const KUBECONFIG = () => env('KUBECONFIG');
export const ARTIFACTS = new URL('./artifacts/', import.meta.url).pathname;
mkdirSync(ARTIFACTS, { recursive: true });

export function kubectl(...args) {
  return execFileSync(KUBECTL(), ['--kubeconfig', KUBECONFIG(), ...args], { encoding: 'utf8' });
}

/** `kubectl apply` of one object (or a v1 List), given as a plain object. */
export function apply(manifest) {
  return execFileSync(KUBECTL(), ['--kubeconfig', KUBECONFIG(), 'apply', '-f', '-'],
    { input: JSON.stringify(manifest), encoding: 'utf8' });
}

/**
 * A one-replica Deployment `name` in demo-shop whose container `c` runs
 * `image` (kwok runs it), labelled `app: name`: the object the edit, history
 * and rollout tests change.
 */
export function deployment(name, image) {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name, namespace: 'demo-shop', labels: { app: name } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } },
    },
  };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * kubectl proxy's default reject-paths (exec, attach) plus port-forward and
 * the proxy subresource of pods, services and nodes: hack/reject-paths, the
 * one list hack/lib.sh and the kubectl-glass launcher read too.
 */
export const REJECT_PATHS = readFileSync(new URL('../hack/reject-paths', import.meta.url), 'utf8')
  .split('\n').filter(Boolean).join(',');

/** A fresh capability token: 128 random bits in hex (never starts with `api`). */
export const newToken = () => randomBytes(16).toString('hex');

/**
 * A kuberc preferences file that gives `kubectl proxy` the prefixes
 * `/<token>/` (API) and `/<token>/ui/` (app), mode 0600 in a fresh folder
 * only we can enter: kubectl takes them from flags or from such a file, and
 * a command line is readable by every local user (`ps`). `remove()` deletes
 * the folder.
 */
function proxyKuberc(token) {
  const folder = mkdtempSync(join(tmpdir(), 'kubeglass-proxy-')); // mode 0700
  const file = join(folder, 'kuberc');
  writeFileSync(file, ['apiVersion: kubectl.config.k8s.io/v1beta1', 'kind: Preference', 'defaults:',
    '- command: proxy', '  options:', '  - name: api-prefix', `    default: "/${token}/"`,
  '  - name: www-prefix', `    default: "/${token}/ui/"`, ''].join('\n'), { mode: 0o600, flag: 'wx' });
  return { file, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

/**
 * Starts a plain `kubectl proxy` serving the built app, as the by-hand recipe
 * in the README does: the API and the app under a capability token
 * (`/<token>/`, `/<token>/ui/`; a given one, to come back after a stop), the
 * hardened reject-paths, 127.0.0.1 only. For the tests about kubectl proxy
 * itself, its outages and its flags; the rest use `startApp`. Resolves once
 * it answers; `url` is the app, `api` the API's base. The token is not on
 * kubectl's command line: the prefixes come from a kuberc file
 * (`proxyKuberc`; `--kuberc` fails closed, kubectl exits rather than serve
 * without them), and this checks kubectl's /proc/<pid>/cmdline. Without a
 * `port` kubectl picks one (`--port 0`) and says which; a restart passes the
 * first one's `port` (and `token`) to come back where it was.
 */
export async function startProxy(kubeconfig = KUBECONFIG(), { token = newToken(), extra = [], plain = false, port = 0 } = {}) {
  // `plain`: no token at all, as a person might run it by hand
  // (`kubectl proxy --www=dist --www-prefix=/ui/`).
  const kuberc = plain ? null : proxyKuberc(token);
  const prefixes = plain
    ? ['--www', env('DIST'), '--www-prefix=/ui/']
    : [`--kuberc=${kuberc.file}`, '--www', env('DIST')];
  const child = spawn(KUBECTL(), ['--kubeconfig', kubeconfig, 'proxy', '--address', '127.0.0.1',
    '--port', String(port), ...prefixes,
    `--reject-paths=${REJECT_PATHS}`, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.once('exit', () => kuberc?.remove());
  let output = '';
  child.stdout.on('data', (d) => { output += d; });
  child.stderr.on('data', (d) => { output += d; });
  const serving = () => Number(/Starting to serve on 127\.0\.0\.1:(\d+)/.exec(output)?.[1] ?? 0);
  let api;
  const up = await until(async () => {
    if (child.exitCode !== null || !serving()) return false;
    api = plain ? `http://127.0.0.1:${serving()}` : `http://127.0.0.1:${serving()}/${token}`;
    return fetch(`${api}/version`).then((r) => r.ok, () => false);
  }, 20000, 100);
  if (!up) {
    child.kill('SIGKILL');
    throw new Error(`kubectl proxy ${child.exitCode !== null ? 'exited' : 'did not start'}: ${output}`);
  }
  port = serving();
  kuberc?.remove(); // read at start; a restart writes a new one
  if (!plain && readFileSync(`/proc/${child.pid}/cmdline`, 'latin1').includes(token)) {
    child.kill('SIGKILL');
    throw new Error('the token is on kubectl proxy\'s command line');
  }
  return {
    url: `${api}/ui/`,
    api,
    token: plain ? '' : token,
    port,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Starts the app as a person does: `kubectl glass` (the launcher built by
 * `make test`, the app inside) on `port` for `kubeconfig`, kubectl proxy on
 * its private socket, the token in its memory. Resolves once it printed its
 * URL (it prints it only when kubectl answers); `url` is the app, on the
 * run's own `<name>.localhost` (which only a browser resolves), `api` the
 * API's base as a program reaches it (`127.0.0.1:<port>`, no browser
 * headers), `browserApi` the same as the app's page reaches it. Without a
 * `port` the launcher picks one free on both loopbacks, as it does for a
 * person who gives none.
 */
export async function startApp(kubeconfig = KUBECONFIG(), { readOnly = false, flags = [], port, state: kept } = {}) {
  // The app's store (preferences, the discovery cache, saved tables) in a
  // folder of this run's, not the user's ~/.local/state, nor shared with
  // another file's run; or in `state`, kept after the run, for a test that
  // starts the launcher again on it.
  const state = kept ?? mkdtempSync(join(tmpdir(), 'kubeglass-state-'));
  const child = spawn(env('GLASS'), ['--kubectl', KUBECTL(), '--kubeconfig', kubeconfig,
    ...(port ? ['--port', String(port)] : []), '--no-open', ...(readOnly ? ['--read-only'] : []), ...flags],
  { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, XDG_STATE_HOME: state } });
  if (!kept) child.once('exit', () => rmSync(state, { recursive: true, force: true }));
  let output = '';
  const exited = new Promise((r) => child.once('exit', r));
  const printed = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`kubectl-glass printed no URL within 30 s: ${output}`)), 30000);
    const seen = () => {
      const m = /http:\/\/[0-9a-f]{32}\.localhost:(\d+)\/([0-9a-f]{32})\/ui\//.exec(output);
      if (m && output.includes('Private folder: ')) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout.on('data', (d) => { output += d; seen(); });
    child.stderr.on('data', (d) => { output += d; });
    exited.then((code) => { clearTimeout(timer); reject(new Error(`kubectl-glass exited (${code}): ${output}`)); });
  });
  const [url, shownPort, token] = await printed;
  return {
    url,
    api: `http://127.0.0.1:${shownPort}/${token}`,
    browserApi: url.slice(0, url.indexOf('/ui/')),
    token,
    state,
    port: Number(shownPort),
    pid: child.pid,
    exited,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * The usual fixture of a test file: before its tests, `setup` (objects the
 * tests need), then the app through kubectl-glass and a fresh
 * Chromium; after them, both stopped and `teardown` run, best effort. The
 * returned object reads through to both once they are up: `url`, `api`,
 * `token`, `page`, `errors` (the page's errors and console errors).
 */
export function withApp({ setup, teardown, kubeconfig, readOnly = false, onBrowser } = {}) {
  let app;
  let browser;
  before(async () => {
    await setup?.();
    app = await startApp(kubeconfig ?? KUBECONFIG(), { readOnly });
    browser = await launchBrowser();
    onBrowser?.(browser);
  });
  after(async () => {
    await browser?.close();
    await app?.stop();
    await teardown?.();
  });
  return {
    get url() { return app.url; },
    get api() { return app.api; },
    get browserApi() { return app.browserApi; },
    get token() { return app.token; },
    get state() { return app.state; },
    get page() { return browser.page; },
    get errors() { return browser.errors; },
  };
}

/**
 * Undoes what a test made: runs each kubectl command alone (deletes with
 * `--ignore-not-found`, a label put back…), after the test whether it passed
 * or not (from `after`, `t.after` or `withApp`'s teardown). One that fails
 * does not stop the others or hide the test's own result, but is said on
 * stderr with kubectl's words, so a leftover is never silent.
 */
export function cleanUp(...commands) {
  for (const args of commands) {
    try {
      execFileSync(KUBECTL(), ['--kubeconfig', KUBECONFIG(), ...args], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
    } catch (e) {
      process.stderr.write(`cleanup: kubectl ${args.join(' ')} failed: ${String(e.stderr ?? e.message).trim()}\n`);
    }
  }
}

/** Launches Debian's headless Chromium with a fresh profile. */
export async function launchBrowser() {
  const profile = mkdtempSync(join(tmpdir(), 'kubeglass-e2e-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [...CHROMIUM_FLAGS],
  });
  const page = context.pages()[0] ?? await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  return {
    page,
    errors,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Reads the live pod count shown by the app (a number, or NaN while loading). */
export async function shownPodCount(page) {
  return Number((await page.getByTestId('pod-count').innerText()).trim());
}

/** Polls `fn` until it returns a truthy value or `ms` pass; returns the last value. */
export async function until(fn, ms = 15000, every = 50) {
  const deadline = Date.now() + ms;
  let v;
  for (;;) {
    v = await fn();
    if (v || Date.now() > deadline) return v;
    await sleep(every);
  }
}

/** POSTs JSON to etcd over TLS with the cluster's CA and (unless told not to) its client certificate. */
export function etcdPost(path, body, { cert = true } = {}) {
  const pki = env('ETCD_PKI');
  const url = new URL(path, env('ETCD_URL'));
  return new Promise((resolve, reject) => {
    const req = https.request({
      host: url.hostname, port: url.port, path: url.pathname, method: 'POST',
      ca: readFileSync(`${pki}/ca.crt`),
      ...(cert ? { cert: readFileSync(`${pki}/etcd-client.crt`), key: readFileSync(`${pki}/etcd-client.key`) } : {}),
      headers: { 'content-type': 'application/json' },
    }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(text)) : reject(new Error(`${res.statusCode} ${text}`))));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/**
 * Compacts etcd at its current revision (as the apiserver does every five
 * minutes): every older resourceVersion is gone for what etcd answers
 * itself. Resolves to the revision. (The apiserver's watch cache still
 * answers watches within its window; PodTemplates skip it in the test
 * cluster, so theirs really get 410.)
 */
export async function compactEtcd() {
  const key = Buffer.from('/registry/kubeglass-none').toString('base64');
  const revision = (await etcdPost('/v3/kv/range', { key })).header.revision;
  await etcdPost('/v3/kv/compaction', { revision, physical: true });
  return Number(revision);
}

/**
 * How many watches of the core `resource` the apiserver holds open now
 * (its `apiserver_longrunning_requests` gauge), every client's together.
 */
export function apiserverWatches(resource) {
  let n = 0;
  const metrics = execFileSync(KUBECTL(), ['--kubeconfig', KUBECONFIG(), 'get', '--raw', '/metrics'],
    { encoding: 'utf8', maxBuffer: 64 << 20 });
  for (const line of metrics.split('\n')) {
    if (!line.startsWith('apiserver_longrunning_requests{')) continue;
    if (line.includes('verb="WATCH"') && line.includes(`resource="${resource}"`) && line.includes('group=""')
      && line.includes('subresource=""')) n += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return n;
}

/**
 * Waits (up to `ms`) until no namespace is being deleted. While one is,
 * the namespace controller LISTs each of its kinds, pods too, until it is
 * empty: a count of the apiserver's LISTs taken then counts those. (An
 * earlier test deletes its namespace without waiting.)
 */
export async function noNamespaceEnding(ms = 180000) {
  const ending = () => kubectl('get', 'namespaces', '-o', 'jsonpath={.items[?(@.status.phase=="Terminating")].metadata.name}').trim();
  const ok = await until(() => ending() === '', ms, 500);
  if (!ok) throw new Error(`namespaces still ending after ${ms} ms: ${ending()}`);
}

/**
 * How many requests of `verb` (LIST, WATCH…) on the core `resource` the
 * apiserver has served since it started, every code and scope together:
 * its own `apiserver_request_total`, so a request any client made counts.
 */
export function apiserverRequests(verb, resource) {
  let n = 0;
  const metrics = execFileSync(KUBECTL(), ['--kubeconfig', KUBECONFIG(), 'get', '--raw', '/metrics'],
    { encoding: 'utf8', maxBuffer: 64 << 20 });
  for (const line of metrics.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const labels = line.slice(line.indexOf('{') + 1, line.lastIndexOf('}'));
    if (labels.includes(`verb="${verb}"`) && labels.includes(`resource="${resource}"`)
      && labels.includes('group=""') && labels.includes('subresource=""')) {
      n += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return n;
}
