// Every context one click away: one kubectl glass serves every context of
// the kubeconfig, each on an origin of its own, starting a context's kubectl
// proxy only when a tab first asks for it and stopping it once no tab has
// for a while. The header names `context · cluster` (the tab's title too)
// and its menu opens another context. Real launcher, kubectl, cluster and
// Chromium; the kubeconfig is the admin's and the restricted viewer's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubectl, startApp, launchBrowser, until, cleanUp, env } from '../lib.mjs';
import { table } from '../pages.mjs';

const NS = 'demo-shop';
const CM = `contexts-${Date.now()}`;
const ADMIN = 'admin@kubeglass-local';
const VIEWER = 'viewer@kubeglass-local';
/** The idle time given to the launcher: a proxy no tab uses stops after it. */
const IDLE_SECONDS = 5;

let scratch;
let app;
let browser;
/** The proxies running once the launcher printed its URL. */
let atLaunch;

before(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'kubeglass-contexts-'));
  // One kubeconfig with both users, as kubectl merges two files.
  const merged = execFileSync(env('KUBECTL'), ['config', 'view', '--flatten', '--raw'], {
    encoding: 'utf8',
    env: { ...process.env, KUBECONFIG: `${env('KUBECONFIG')}:${process.env.RESTRICTED_KUBECONFIG}` },
  });
  const kc = join(scratch, 'two.kubeconfig');
  writeFileSync(kc, merged, { mode: 0o600 });
  app = await startApp(kc, { flags: ['--proxy-idle', String(IDLE_SECONDS)] });
  atLaunch = proxies();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await app?.stop();
  rmSync(scratch, { recursive: true, force: true });
  cleanUp(['delete', 'configmap', CM, '-n', NS, '--ignore-not-found']);
});

/** The run's private folder, as the launcher printed it. */
const folder = () => /Private folder: (\S+)/.exec(app.output())[1];

/** The kubectl proxies this run has running: their sockets' folders (`app-<i>`). */
function proxies() {
  const lines = execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' }).split('\n')
    .filter((l) => l.trim() && !l.trim().startsWith('Z'));
  return lines.flatMap((l) => {
    const m = new RegExp(`--unix-socket=${folder()}/(app-\\d+)/proxy\\.sock`).exec(l);
    return m && / proxy /.test(l) ? [m[1]] : [];
  }).sort();
}

/** Reads every file of the launcher's state folder, by context: its name's hash → text. */
function stateFiles() {
  const root = join(app.state, 'kubeglass', 'contexts');
  const out = [];
  const walk = (dir) => {
    for (const f of readdirSync(dir)) {
      const p = join(dir, f);
      if (statSync(p).isDirectory()) walk(p);
      else out.push({ path: p.slice(root.length + 1), text: readFileSync(p, 'utf8') });
    }
  };
  if (existsSync(root)) walk(root);
  return out;
}

test('one launcher serves both contexts: each on its own origin, its proxy started when first opened and stopped when idle', async () => {
  assert.match(app.output(), /other context is in the header's menu/);
  assert.deepEqual(atLaunch, ['app-0'], 'only the opened context\'s proxy runs at launch');
  const { page } = browser;
  await page.goto(`${app.url}#/r/configmaps?ns=${NS}`);
  await page.getByTestId('session-context').waitFor({ timeout: 20000 });
  assert.equal(await page.getByTestId('session-context').innerText(), `${ADMIN} · kubeglass-local`);
  assert.equal(await page.title(), `${ADMIN} · kubeglass-local — Kubeglass`);
  await table(page).loaded();

  // The menu: both contexts, this one marked, the other a link through
  // this launcher's own path (no other token is in this page).
  await page.getByTestId('session-context').click();
  assert.equal(await page.getByTestId('context-current').innerText(), `${ADMIN} · kubeglass-local`);
  const link = page.getByTestId('context-link');
  assert.equal(await link.innerText(), `${VIEWER} · kubeglass-local`);
  const href = await link.getAttribute('href');
  assert.equal(href, `../glass/open/1#/r/configmaps?ns=${NS}`, 'the table goes along');
  const html = await page.content();
  // A menu: Escape closes it, a click elsewhere too.
  await page.keyboard.press('Escape');
  await link.waitFor({ state: 'hidden', timeout: 5000 });
  await page.getByTestId('session-context').click();
  await link.waitFor({ timeout: 5000 });
  await page.getByTestId('column-header').first().click({ position: { x: 2, y: 2 } });
  await link.waitFor({ state: 'hidden', timeout: 5000 });
  await page.getByTestId('session-context').click();

  await link.click();
  await page.waitForURL((u) => u.origin !== new URL(app.url).origin, { timeout: 20000 });
  const viewerUrl = page.url();
  const viewer = new URL(viewerUrl);
  assert.match(viewer.hostname, /^[0-9a-f]{32}\.localhost$/, 'a name of its own');
  const viewerToken = viewer.pathname.split('/')[1];
  for (const secret of [viewerToken, viewer.hostname.split('.')[0]]) {
    assert.ok(!html.includes(secret), 'the admin\'s page never held the viewer\'s token or name');
  }
  assert.equal(new URL(viewerUrl).hash, `#/r/configmaps?ns=${NS}`);
  await page.getByTestId('session-context').waitFor({ timeout: 20000 });
  assert.equal(await page.getByTestId('session-context').innerText(), `${VIEWER} · kubeglass-local`);
  assert.equal(await page.title(), `${VIEWER} · kubeglass-local — Kubeglass`);
  await table(page).loaded();
  // (The admin's may have stopped by now: no tab of it is open.)
  assert.ok(proxies().includes('app-1'), 'the viewer\'s proxy started when its page asked');

  // Both tabs stay live, each through its own proxy.
  const admin = await page.context().newPage();
  await admin.goto(`${app.url}#/r/configmaps?ns=${NS}`);
  await admin.getByTestId('session-context').waitFor({ timeout: 20000 });
  await table(admin).loaded();
  kubectl('create', 'configmap', CM, '-n', NS, '--from-literal=k=v');
  await table(admin).row(`${NS}/${CM}`).waitFor({ timeout: 20000 });
  await table(page).row(`${NS}/${CM}`).waitFor({ timeout: 20000 });

  // Each origin's data stays its own: the admin lists namespaces (the
  // viewer may not); what the launcher keeps for the viewer names none.
  await admin.goto(`${app.url}#/r/namespaces`);
  await table(admin).row('kube-system').waitFor({ timeout: 20000 });
  const saved = await until(async () => {
    const files = stateFiles().filter((f) => f.path.includes('.saved/'));
    const dirs = new Set(files.map((f) => f.path.split('/')[0]));
    return dirs.size === 2 && files.some((f) => f.text.includes('"kube-system"')) ? files : null;
  }, 20000);
  assert.ok(saved, `both contexts saved their tables: ${stateFiles().map((f) => f.path)}`);
  const holding = new Set(saved.filter((f) => f.text.includes('"kube-system"')).map((f) => f.path.split('/')[0]));
  assert.equal(holding.size, 1, 'the namespaces the admin listed are kept for the admin\'s context only');
  for (const p of [page, admin]) {
    assert.equal(await p.evaluate(() => localStorage.length), 0, 'the browser keeps nothing on either origin');
  }

  // Closed, the viewer's tab leaves its proxy idle: it stops; opened again
  // from the admin's menu, it starts again.
  await page.close();
  assert.ok(await until(async () => proxies().length === 1, 20000),
    `the idle proxy stopped: ${proxies()}`);
  // The admin's tab only watches (its streams are in flight the whole
  // time): its proxy outlives several idle times.
  assert.ok(!await until(async () => !proxies().includes('app-0'), 3 * IDLE_SECONDS * 1000, 200),
    'a proxy with a tab watching through it is never stopped for idleness');
  await admin.goto(`${app.url}#/r/configmaps?ns=${NS}`);
  await table(admin).row(`${NS}/${CM}`).waitFor({ timeout: 20000 });
  await admin.getByTestId('session-context').click();
  await admin.getByTestId('context-link').click();
  await admin.waitForURL((u) => u.origin === new URL(viewerUrl).origin, { timeout: 20000 });
  await table(admin).row(`${NS}/${CM}`).waitFor({ timeout: 20000 });
  assert.ok(proxies().includes('app-1'), 'started again on demand');
  await admin.close();
});
