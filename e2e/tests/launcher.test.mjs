// kubectl glass: the launcher binary (crates/glass, the app inside it) run as
// a person would, with the real kubectl and cluster and real Chromium.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, copyFileSync, rmSync, statSync, writeFileSync, readFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { kubectl, launchBrowser, until } from '../lib.mjs';

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the e2e tests through \`make test\``);
  return v;
};
const PORT = Number(process.env.E2E_PROXY_PORT ?? 18101) + 10;
let browser;
let scratch;

let pluginDir;

before(async () => {
  browser = await launchBrowser();
  scratch = mkdtempSync(join(tmpdir(), 'kubeglass-launcher-'));
  // "Installed": the binary as kubectl-glass in a bin folder of its own.
  pluginDir = join(scratch, 'bin');
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
function glass(args, { kubectlPath = env('KUBECTL'), kubeconfig = env('KUBECONFIG') } = {}) {
  const plugin = kubectlPath === env('KUBECTL');
  const child = plugin
    ? spawn(env('KUBECTL'), ['glass', '--kubeconfig', kubeconfig, '--no-open', ...args],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: `${pluginDir}:${dirname(env('KUBECTL'))}`, HOME: process.env.HOME } })
    : spawn(env('GLASS'), ['--kubectl', kubectlPath, '--kubeconfig', kubeconfig, '--no-open', ...args],
      { stdio: ['ignore', 'pipe', 'pipe'] });
  const run = { child, stdout: '', stderr: '', code: undefined };
  child.stdout.on('data', (d) => { run.stdout += d; });
  child.stderr.on('data', (d) => { run.stderr += d; });
  // 'close', not 'exit': by then stdout and stderr have been read to the end.
  run.exited = new Promise((r) => child.once('close', (code, signal) => { run.code = code; run.signal = signal; r(code); }));
  run.started = (async () => {
    assert.ok(await until(async () => run.code !== undefined || /App files in /.test(run.stdout), 30000),
      `kubectl-glass neither started nor exited within 30 s: ${run.stdout} ${run.stderr}`);
    const urls = [...run.stdout.matchAll(/http:\/\/127\.0\.0\.1:(\d+)\/([0-9a-f]{32})\/ui\/\S*/g)].map((m) => m[0]);
    const dir = /App files in (\S+)/.exec(run.stdout)?.[1];
    return { urls, dir };
  })();
  return run;
}

const apiOf = (url) => url.slice(0, url.indexOf('/ui/'));

test('kubectl glass serves the app for the context, names it in the header, and cleans up on SIGTERM', async () => {
  const run = glass(['--port', String(PORT)]);
  const { urls, dir } = await run.started;
  assert.equal(run.code, undefined, `exited early: ${run.stderr}`);
  assert.equal(urls.length, 1, run.stdout);
  const url = urls[0];
  assert.ok(url.startsWith(`http://127.0.0.1:${PORT}/`), url);
  assert.match(run.stdout, /context "admin@kubeglass-local" \(cluster "kubeglass-local"\)/);
  assert.equal(statSync(dir).mode & 0o777, 0o700, 'the app folder is private');
  // The capability URL: nothing without the token.
  assert.equal((await fetch(`http://127.0.0.1:${PORT}/version`)).status, 404);
  assert.equal((await fetch(`${apiOf(url)}/version`)).status, 200);
  const { page } = browser;
  await page.goto(url);
  await page.getByTestId('server-version').waitFor({ timeout: 20000 });
  assert.equal(await page.getByTestId('session-context').innerText(), 'admin@kubeglass-local · kubeglass-local');
  assert.equal(await page.getByTestId('read-only-badge').count(), 0);
  await page.goto(`${url}#/o/deployments.apps/demo-shop/frontend`);
  await page.getByTestId('action-delete').waitFor({ timeout: 20000 });
  assert.equal(await page.getByTestId('session-context').count(), 1, 'on every page');

  run.child.kill('SIGTERM');
  assert.equal(await run.exited, 0, run.stderr);
  assert.ok(!existsSync(dir), 'the app folder is removed');
  await assert.rejects(fetch(`${apiOf(url)}/version`), 'the proxy is gone');
});

test('--read-only: the proxy refuses every write, and the app shows a badge and no actions', async () => {
  const run = glass(['--port', String(PORT), '--read-only']);
  const { urls } = await run.started;
  assert.equal(run.code, undefined, `exited early: ${run.stderr}`);
  const api = apiOf(urls[0]);
  try {
    const name = `read-only-probe-${Date.now() % 1000000}`;
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'patch']) { // 'patch': fetch normalizes the case of POST, PUT and DELETE, not PATCH
      const path = method.toUpperCase() === 'POST' ? '/api/v1/namespaces/demo-shop/configmaps' : `/api/v1/namespaces/demo-shop/configmaps/${name}`;
      const r = await fetch(api + path, { method, headers: { 'content-type': 'application/json' },
        body: method === 'DELETE' ? undefined : JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }) });
      assert.equal(r.status, 403, `${method} answered ${r.status}`);
    }
    assert.equal((await fetch(`${api}/api/v1/namespaces/demo-shop/configmaps`)).status, 200, 'reads still work');
    assert.equal(kubectl('-n', 'demo-shop', 'get', 'configmap', name, '--ignore-not-found').trim(), '', 'nothing was written');

    const { page } = browser;
    await page.goto(`${urls[0]}#/o/deployments.apps/demo-shop/frontend`);
    await page.getByTestId('object-title').waitFor({ timeout: 20000 });
    assert.equal(await page.getByTestId('read-only-badge').innerText(), 'read-only');
    assert.match(await page.getByTestId('no-actions').innerText(), /read-only/);
    assert.equal(await page.getByTestId('object-actions').locator('button').count(), 0, 'no action buttons');
    await page.goto(urls[0]);
    // The app opens in the context's namespace (the test kubeconfig names default).
    assert.ok(await until(async () => (await page.getByTestId('namespace-input').inputValue()) === 'default', 10000),
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

test('a context keeps its port from run to run, and -n opens that namespace\'s pods', async () => {
  const ports = [];
  for (let i = 0; i < 2; i++) {
    const run = glass(['-n', 'demo-shop']);
    const { urls, dir } = await run.started;
    assert.equal(run.code, undefined, `exited early: ${run.stderr}`);
    assert.match(urls[0], /\/ui\/#\/r\/pods\?ns=demo-shop$/);
    ports.push(new URL(urls[0]).port);
    assert.ok(dir && existsSync(dir));
    run.child.kill('SIGINT');
    assert.equal(await run.exited, 0);
    assert.ok(!existsSync(dir), 'SIGINT removes the app folder');
    await assert.rejects(fetch(`${apiOf(urls[0])}/version`), 'and stops the proxy');
  }
  assert.equal(ports[0], ports[1]);
  assert.ok(Number(ports[0]) >= 47100 && Number(ports[0]) < 47900, ports[0]);
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
    for (const u of urls) assert.equal((await fetch(`${apiOf(u)}/version`)).status, 200);
    const { page } = browser;
    const shown = [];
    for (const u of urls) {
      await page.goto(u);
      await page.getByTestId('server-version').waitFor({ timeout: 20000 });
      shown.push(await page.getByTestId('session-context').innerText());
    }
    assert.deepEqual(shown.sort(), ['admin@kubeglass-local · kubeglass-local', 'second · second-cluster'],
      'each tab names its own context and cluster');
  } finally {
    run.child.kill('SIGINT');
    await run.exited;
  }
  for (const u of urls) await assert.rejects(fetch(`${apiOf(u)}/version`));
});
