// Tables that outlive the tab: a table's rows are saved with their version,
// and the next visit (a reload, a launcher restarted on a new origin) draws
// them before any API request has been answered, then resumes with a watch:
// no LIST while the version is valid, exactly one when etcd compacted it
// away. Counted twice: the requests the page sent, and the apiserver's own
// request metrics. Secrets are never kept anywhere.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  kubectl, apply, startApp, launchBrowser, until, cleanUp, compactEtcd, apiserverRequests, apiserverWatches, noNamespaceEnding,
} from '../lib.mjs';
import { table } from '../pages.mjs';

const NS = `warm-start-${Date.now()}`;
const SECRET_VALUE = `kept-nowhere-${randomBytes(8).toString('hex')}`;
const PODS = `/api/v1/namespaces/${NS}/pods`;
const TEMPLATES = `/api/v1/namespaces/${NS}/podtemplates`;

const podTemplate = (name) => ({
  apiVersion: 'v1', kind: 'PodTemplate', metadata: { name, namespace: NS },
  template: { spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10' }] } },
});
const run = (name) => kubectl('run', name, '-n', NS, '--image=registry.k8s.io/pause:3.10', '--restart=Never');

let state;
let app;
let browser;

before(async () => {
  kubectl('create', 'namespace', NS);
  for (const p of ['a', 'b', 'c']) run(p);
  for (const t of ['t1', 't2']) apply(podTemplate(t));
  kubectl('create', 'secret', 'generic', 'token', '-n', NS, `--from-literal=value=${SECRET_VALUE}`);
  // The launcher's folder is kept across its restarts, as a person's is.
  state = mkdtempSync(join(tmpdir(), 'kubeglass-state-'));
  app = await startApp(undefined, { state });
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await app?.stop();
  if (state) rmSync(state, { recursive: true, force: true });
  cleanUp(['delete', 'namespace', NS, '--ignore-not-found', '--wait=false']);
});

/** The keys the launcher keeps saved tables under. */
async function savedKeys() {
  const r = await fetch(`${app.api}/glass/saved`);
  assert.equal(r.status, 200, await r.clone().text());
  return r.json();
}

/** The readable part of a saved key names its collection's path. */
const savedFor = (keys, form, path) => keys.some((k) => k.startsWith(`${form}.${path.slice(1).replaceAll('/', '.')}.`));

/**
 * What the page asks the API (fetches and WebSockets) and how many answers
 * came: `lists(path)` are its GETs of the collection that are not watches.
 */
function track(page) {
  const api = (url) => new URL(url).pathname.startsWith(`/${app.token}/api`);
  const asked = [];
  let answered = 0;
  page.on('request', (r) => { if (api(r.url())) asked.push(r.url()); });
  page.on('websocket', (w) => { if (api(w.url())) asked.push(w.url()); });
  page.on('response', (r) => { if (api(r.url())) answered += 1; });
  const on = (path) => asked.map((u) => new URL(u)).filter((u) => u.pathname === `/${app.token}${path}`);
  return {
    answered: () => answered,
    lists: (path) => on(path).filter((u) => u.searchParams.get('watch') !== 'true').map(String),
    watches: (path) => on(path).filter((u) => u.searchParams.get('watch') === 'true').map(String),
  };
}

/**
 * Holds every API request the page sends until `release()` (which the
 * test's end calls too, so a failure leaves no page stuck).
 */
async function holdApi(t, page) {
  const held = [];
  const matches = (url) => url.pathname.startsWith(`/${app.token}/api`);
  const hold = (route) => { held.push(route); };
  await page.route(matches, hold);
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    await page.unroute(matches, hold);
    for (const r of held) await r.continue().catch(() => {});
  };
  t.after(release);
  return { held, release };
}

/** The text saved for the table of `path`, '' while there is none. */
async function savedText(path) {
  const key = (await savedKeys()).find((k) => k.startsWith(`table.${path.slice(1).replaceAll('/', '.')}.`));
  return key ? (await fetch(`${app.api}/glass/saved/${key}`)).text() : '';
}

const sorted = async (t) => (await t.keys()).sort().join(' ');

test('a reloaded pods table draws its saved rows before any API answer, then resumes with no LIST', async (t) => {
  const { page } = browser;
  const pods = table(page);
  await page.goto(`${app.url}#/r/pods?ns=${NS}`);
  assert.ok(await until(async () => await sorted(pods) === `${NS}/a ${NS}/b ${NS}/c`, 20000), await sorted(pods));
  // Saved on the next look (every 5 s): the rows, and the usage columns'
  // pods cut to their resources (their watch starts once metrics answer).
  const keys = await until(async () => {
    const k = await savedKeys();
    return savedFor(k, 'table', PODS) && savedFor(k, 'list', PODS) && k;
  }, 30000);
  assert.ok(keys, `saved: ${JSON.stringify(await savedKeys())}`);

  // The tab is gone; meanwhile a pod goes and another comes.
  await page.goto('about:blank');
  kubectl('delete', 'pod', 'a', '-n', NS, '--grace-period=0', '--force', '--wait=false');
  run('d');
  await noNamespaceEnding();
  const listsBefore = apiserverRequests('LIST', 'pods');
  const asked = track(page);
  const hold = await holdApi(t, page);
  await page.goto(`${app.url}#/r/pods?ns=${NS}`);
  assert.ok(await until(async () => await sorted(pods) === `${NS}/a ${NS}/b ${NS}/c`, 20000),
    `the saved rows, before any answer: ${await sorted(pods)}`);
  assert.equal(asked.answered(), 0, 'no API request has been answered');
  assert.ok(hold.held.length > 0, 'the page did ask the API');
  assert.match(await page.getByTestId('resync-note').innerText(), /^from .+ ago\), resyncing$/);

  await hold.release();
  assert.ok(await until(async () => await sorted(pods) === `${NS}/b ${NS}/c ${NS}/d`, 20000),
    `what changed while the tab was closed: ${await sorted(pods)}`);
  await page.getByTestId('resync-note').waitFor({ state: 'detached', timeout: 10000 });
  // Both informers watch (the table's, and the usage columns' once metrics
  // answered), each from its saved version; neither listed.
  assert.ok(await until(() => asked.watches(PODS).length >= 2, 30000), JSON.stringify(asked.watches(PODS)));
  assert.deepEqual(asked.lists(PODS), []);
  assert.equal(apiserverRequests('LIST', 'pods') - listsBefore, 0, 'LISTs of pods at the apiserver');
});

test('after the launcher restarts on a new origin, the table still draws from its saved rows with no LIST', async (t) => {
  const { page } = browser;
  const pods = table(page);
  // Once the server confirmed the rows drawn from the last save, they are
  // saved again (within the 5 s look).
  assert.ok(await until(async () => {
    const text = await savedText(PODS);
    return text.includes('"name":"d"') && !text.includes('"name":"a"');
  }, 20000), 'the table saved as the last visit left it');
  await page.goto('about:blank');
  await app.stop();
  run('e');
  app = await startApp(undefined, { state });
  await noNamespaceEnding();
  const listsBefore = apiserverRequests('LIST', 'pods');
  const asked = track(page);
  const hold = await holdApi(t, page);
  await page.goto(`${app.url}#/r/pods?ns=${NS}`);
  assert.ok(await until(async () => await sorted(pods) === `${NS}/b ${NS}/c ${NS}/d`, 20000),
    `the saved rows, before any answer: ${await sorted(pods)}`);
  assert.equal(asked.answered(), 0, 'no API request has been answered');
  await hold.release();
  assert.ok(await until(async () => (await sorted(pods)).includes(`${NS}/e`), 20000), await sorted(pods));
  assert.ok(await until(() => asked.watches(PODS).length >= 2, 30000), JSON.stringify(asked.watches(PODS)));
  assert.deepEqual(asked.lists(PODS), []);
  assert.equal(apiserverRequests('LIST', 'pods') - listsBefore, 0, 'LISTs of pods at the apiserver');
});

test('a saved version that etcd compacted away costs exactly one LIST', async () => {
  // PodTemplates skip the apiserver's watch cache in the test cluster, so
  // a watch from a compacted version really gets 410 Gone.
  const { page } = browser;
  const templates = table(page);
  await page.goto(`${app.url}#/r/podtemplates?ns=${NS}`);
  assert.ok(await until(async () => await sorted(templates) === `${NS}/t1 ${NS}/t2`, 20000));
  assert.ok(await until(async () => savedFor(await savedKeys(), 'table', TEMPLATES), 30000));
  await page.goto('about:blank');
  apply(podTemplate('t3'));
  await compactEtcd();
  await noNamespaceEnding();
  const listsBefore = apiserverRequests('LIST', 'podtemplates');
  const asked = track(page);
  await page.goto(`${app.url}#/r/podtemplates?ns=${NS}`);
  assert.ok(await until(async () => await sorted(templates) === `${NS}/t1 ${NS}/t2 ${NS}/t3`, 30000),
    await sorted(templates));
  await page.getByTestId('resync-note').waitFor({ state: 'detached', timeout: 10000 });
  assert.equal(asked.lists(TEMPLATES).length, 1, JSON.stringify(asked.lists(TEMPLATES)));
  assert.equal(apiserverRequests('LIST', 'podtemplates') - listsBefore, 1, 'LISTs of podtemplates at the apiserver');
  // The watch from the list's version is the one that stays.
  assert.ok(asked.watches(TEMPLATES).length >= 2, JSON.stringify(asked.watches(TEMPLATES)));
});

test('a tab hidden past its delay stops watching; shown again it resumes with no LIST', async (t) => {
  // Headless Chromium never hides a tab (measured: another tab brought to
  // the front, or the window minimised, leaves visibilityState 'visible'),
  // so this page's own visibility signal is driven: document.hidden and
  // visibilityState answer what the test says, and it dispatches the
  // browser's visibilitychange. The watches, their end and their resumption
  // at the apiserver are real.
  // A tab of the same origin showing the same table would hold its watch
  // for this one (tabs share watches: tabs.test.mjs): this tab is alone.
  await browser.page.goto('about:blank');
  const page = await browser.page.context().newPage();
  t.after(() => page.close());
  await page.addInitScript(() => {
    let hidden = false;
    Object.defineProperty(Document.prototype, 'hidden', { get: () => hidden, configurable: true });
    Object.defineProperty(Document.prototype, 'visibilityState', { get: () => (hidden ? 'hidden' : 'visible'), configurable: true });
    window.kubeglassSetHidden = (h) => { hidden = h; document.dispatchEvent(new Event('visibilitychange')); };
  });
  // Two seconds instead of five minutes, in the context's preferences.
  const put = await fetch(`${app.api}/glass/storage/kubeglass.quiet-after`, { method: 'PUT', body: '2' });
  assert.equal(put.status, 204, await put.text());
  t.after(() => fetch(`${app.api}/glass/storage/kubeglass.quiet-after`, { method: 'DELETE' }));
  const api = (url) => new URL(url).pathname === `/${app.token}${PODS}` && new URL(url).searchParams.get('watch') === 'true';
  let open = 0;
  page.on('request', (r) => { if (api(r.url())) open += 1; });
  page.on('requestfinished', (r) => { if (api(r.url())) open -= 1; });
  page.on('requestfailed', (r) => { if (api(r.url())) open -= 1; });
  page.on('websocket', (w) => { if (api(w.url())) { open += 1; w.on('close', () => { open -= 1; }); } });
  const pods = table(page);
  await page.goto(`${app.url}#/r/pods?ns=${NS}`);
  assert.ok(await until(async () => (await pods.keys()).length >= 3, 20000));
  // The table's watch and the usage columns' (once metrics answered).
  assert.ok(await until(() => open >= 2, 30000), `watches open: ${open}`);
  const watching = apiserverWatches('pods');

  await page.evaluate(() => window.kubeglassSetHidden(true));
  assert.ok(await until(() => open === 0, 20000), `watches still open after the delay: ${open}`);
  assert.ok(await until(() => apiserverWatches('pods') <= watching - 2, 10000),
    `the apiserver's watches of pods: ${apiserverWatches('pods')}, with the tab shown ${watching}`);
  assert.equal(await page.getByTestId('resync-note').innerText(), 'paused while hidden');
  run('f');
  await noNamespaceEnding();
  const listsBefore = apiserverRequests('LIST', 'pods');
  const asked = track(page);

  await page.evaluate(() => window.kubeglassSetHidden(false));
  assert.ok(await until(async () => (await sorted(pods)).includes(`${NS}/f`), 20000),
    `the pod made while hidden: ${await sorted(pods)}`);
  assert.ok(await until(() => open >= 2, 30000), `watches open again: ${open}`);
  await page.getByTestId('resync-note').waitFor({ state: 'detached', timeout: 10000 });
  assert.deepEqual(asked.lists(PODS), []);
  assert.equal(apiserverRequests('LIST', 'pods') - listsBefore, 0, 'LISTs of pods at the apiserver');
  assert.ok(apiserverWatches('pods') >= watching, 'watching again at the apiserver');
});

test('no Secret is kept: not in the launcher\'s folder, not in the browser\'s storage; Forget empties it', async () => {
  const { page } = browser;
  await page.goto(`${app.url}#/r/secrets?ns=${NS}`);
  await table(page).row(`${NS}/token`).waitFor({ timeout: 20000 });
  // Leaving a table saves it at the next look, so every table this file
  // opened has had its chance; the pods' is saved again after this.
  await page.goto(`${app.url}#/r/pods?ns=${NS}`);
  await page.goto(`${app.url}#/xray`);
  await until(async () => (await page.getByTestId('xray-saved-table').count()) > 0, 20000);
  const paths = await page.getByTestId('xray-saved-table').allInnerTexts();
  assert.ok(!paths.some((p) => p.includes('/secrets')), paths.join('\n'));
  assert.ok(!(await savedKeys()).some((k) => k.includes('secrets')), JSON.stringify(await savedKeys()));
  // Every byte kept: the launcher's whole state folder, and this origin's
  // localStorage and Cache Storage.
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p); else files.push(p);
    }
  };
  walk(state);
  assert.ok(files.some((f) => f.includes('.saved/')), files.join('\n'));
  const encoded = Buffer.from(SECRET_VALUE).toString('base64');
  for (const f of files) {
    const text = readFileSync(f, 'latin1');
    assert.ok(!text.includes(SECRET_VALUE) && !text.includes(encoded), `${f} holds the Secret's value`);
  }
  const browserKept = await page.evaluate(async () => {
    const texts = Object.keys(localStorage).map((k) => localStorage.getItem(k));
    for (const name of await caches.keys()) {
      const cache = await caches.open(name);
      for (const req of await cache.keys()) texts.push(await (await cache.match(req)).text());
    }
    return texts.join('\n');
  });
  assert.ok(!browserKept.includes(SECRET_VALUE) && !browserKept.includes(encoded), 'the browser holds the Secret\'s value');

  await page.getByTestId('xray-forget').click();
  await page.getByTestId('xray-forgot').waitFor({ timeout: 10000 });
  assert.match(await page.getByTestId('xray-forgot').innerText(), /^Forgotten/);
  assert.deepEqual(await savedKeys(), []);
});
