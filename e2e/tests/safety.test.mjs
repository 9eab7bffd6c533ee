// Safety: the page runs under a Content-Security-Policy with no violations,
// and strings from the cluster render as text, never as HTML.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, cleanUp, kubectl, launchBrowser, until, startProxy } from '../lib.mjs';
import { frame } from '../pages.mjs';
import { CHROMIUM, CHROMIUM_FLAGS } from '../chromium.mjs';
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';

const EVIL = '<img src=x onerror=alert(1)><script>alert(2)</script>';
const NAME = `xss-probe-${Date.now() % 1000000}`;

const app = withApp({
  teardown() {
    cleanUp(
      ['-n', 'demo-shop', 'delete', 'event', NAME, '--ignore-not-found'],
    );
  },
});

test('the page carries a Content-Security-Policy and breaks none of it', async () => {
  const { page } = app;
  const violations = [];
  await page.exposeFunction('reportViolation', (v) => violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => window.reportViolation(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const response = await page.goto(app.url);
  const html = await response.text();
  assert.match(html, /http-equiv="Content-Security-Policy"/);
  assert.match(html, /script-src 'self' 'wasm-unsafe-eval' 'sha256-/);
  assert.doesNotMatch(html, /unsafe-inline/);
  await frame(page).ready();
  await page.getByTestId('event-row').first().waitFor({ timeout: 20000 });
  assert.deepEqual(violations, [], 'no CSP violations while the app runs (fetch, WebSocket, styles)');
});

test('an Event message full of HTML renders as text and runs nothing', async () => {
  const { page } = app;
  const dialogs = [];
  page.on('dialog', async (d) => { dialogs.push(d.message()); await d.dismiss(); });
  await page.goto(app.url);
  await page.getByTestId('event-row').first().waitFor({ timeout: 20000 });
  const manifest = JSON.stringify({
    apiVersion: 'v1', kind: 'Event',
    metadata: { name: NAME, namespace: 'demo-shop' },
    involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'demo-shop', name: 'feature-flags' },
    reason: 'Probe', message: EVIL, type: 'Warning',
    source: { component: '<b>evil</b>' },
    firstTimestamp: new Date().toISOString(), lastTimestamp: new Date().toISOString(), count: 1,
  });
  execFileSync(process.env.KUBECTL, ['--kubeconfig', process.env.KUBECONFIG, 'create', '-f', '-'], { input: manifest });
  const row = page.getByTestId('event-row').filter({ hasText: 'Probe' });
  await row.waitFor({ timeout: 15000 });
  assert.ok((await row.innerText()).includes(EVIL), 'the markup is shown literally');
  assert.ok((await row.innerText()).includes('<b>evil</b>'));
  assert.equal(await page.locator('img[src=x]').count(), 0, 'no element was created from the string');
  assert.equal(await page.locator('[data-testid=event-table] script').count(), 0);
  await page.waitForTimeout(500);
  assert.deepEqual(dialogs, [], 'nothing ran');
});

/** Records every response body and WebSocket frame the page receives. */
function recordNetwork(page) {
  const seen = { requests: [], bodies: [] };
  page.on('request', (r) => seen.requests.push(`${r.method()} ${r.url()}`));
  page.on('response', async (r) => {
    try { seen.bodies.push({ url: r.url(), text: (await r.body()).toString('utf8') }); } catch { /* no body */ }
  });
  page.on('websocket', (ws) => {
    seen.requests.push(`WS ${ws.url()}`);
    ws.on('framereceived', (f) => seen.bodies.push({ url: ws.url(), text: String(f.payload) }));
  });
  return seen;
}

/** What kubectl glass keeps for the page: the context's store, as a program reads it. */
async function launcherStore() {
  const r = await fetch(`${app.api}/glass/storage`);
  return r.ok ? r.text() : '';
}

/** Everything the page keeps: the DOM's text and markup, both storages, every IndexedDB store, and the launcher's store. */
async function pageHoldings(page) {
  const kept = await launcherStore();
  return kept + await page.evaluate(async () => {
    const out = [document.documentElement.outerHTML, document.body.innerText,
      JSON.stringify({ ...localStorage }), JSON.stringify({ ...sessionStorage })];
    for (const { name } of await indexedDB.databases()) {
      const db = await new Promise((res, rej) => { const q = indexedDB.open(name); q.onsuccess = () => res(q.result); q.onerror = rej; });
      for (const store of db.objectStoreNames) {
        const all = await new Promise((res) => { const q = db.transaction(store).objectStore(store).getAll(); q.onsuccess = () => res(q.result); });
        out.push(JSON.stringify(all));
      }
      db.close();
    }
    return out.join('\n');
  });
}

test('a Secret value is nowhere before Reveal, shows after it, and is gone after leaving', async (t) => {
  const secret = `leak-probe-${Date.now() % 1000000}`;
  const value = `s3cr3t-${Math.random().toString(36).slice(2)}-value`;
  const b64 = Buffer.from(value).toString('base64');
  kubectl('-n', 'demo-shop', 'create', 'secret', 'generic', secret, `--from-literal=password=${value}`);
  const b = await launchBrowser();
  t.after(async () => {
    await b.close();
    cleanUp(['-n', 'demo-shop', 'delete', 'secret', secret, '--ignore-not-found']);
  });
  const { page } = b;
  const net = recordNetwork(page);
  // The Secret's page, and the Secrets table, with the data never asked for.
  await page.goto(`${app.url}#/r/secrets?ns=demo-shop`);
  await page.getByTestId('resource-row').filter({ hasText: secret }).waitFor({ timeout: 20000 });
  await page.goto(`${app.url}#/o/secrets/demo-shop/${secret}`);
  await page.getByTestId('object-title').waitFor({ timeout: 20000 });
  assert.ok(await until(async () => (await page.getByTestId('yaml').innerText()).includes(secret), 15000));
  await page.getByTestId('secret-reveal').waitFor({ timeout: 10000 });
  const before = await pageHoldings(page);
  assert.ok(!before.includes(value) && !before.includes(b64), 'not in the DOM or any storage before Reveal');
  const leaked = net.bodies.filter((x) => x.text.includes(b64) || x.text.includes(value));
  assert.deepEqual(leaked.map((x) => x.url), [], 'no response the app requested carried the data');
  assert.ok(net.requests.some((r) => r.includes('/secrets')), 'the Secret was asked for (as metadata)');
  assert.ok(!(await page.getByTestId('yaml').innerText()).includes('password'), 'the YAML view has no data');

  // Declining the confirmation fetches nothing.
  page.once('dialog', (d) => d.dismiss());
  const asked = net.requests.length;
  await page.getByTestId('secret-reveal').click();
  await page.getByTestId('secret-reveal').waitFor();
  assert.equal(net.requests.slice(asked).filter((r) => r.includes(`/secrets/${secret}`)).length, 0);

  page.once('dialog', (d) => d.accept());
  await page.getByTestId('secret-reveal').click();
  const cell = page.getByTestId('secret-value');
  await cell.waitFor({ timeout: 10000 });
  assert.equal(await page.getByTestId('secret-key').innerText().then((t) => t.split('\t')[0].trim()), 'password');
  assert.ok(!(await cell.innerText()).includes(value), 'masked until clicked');
  await cell.click();
  assert.ok(await until(async () => (await cell.innerText()).includes(value), 5000));
  assert.equal((await cell.innerText()).trim(), value, 'decoded from base64');
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage })) + await launcherStore();
  assert.ok(!stored.includes(value) && !stored.includes(b64), 'not stored after Reveal either');
  assert.ok(!page.url().includes(value), 'not in the URL');

  await page.goto(`${app.url}#/`);
  await frame(page).ready();
  const after = await pageHoldings(page);
  assert.ok(!after.includes(value) && !after.includes(b64), 'gone from the DOM once the page is left');
});

/** The files under `dir` (every depth) whose bytes hold any of `needles`. */
function filesHolding(dir, needles) {
  const found = [];
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath ?? e.path, e.name);
    let bytes;
    try { bytes = readFileSync(path); } catch { continue; /* a socket or lock gone since */ }
    if (needles.some((n) => bytes.includes(n))) found.push(path.slice(dir.length));
  }
  return found;
}

test('after Reveal, no byte of the Secret is in the browser profile: not in the HTTP cache, through the launcher or a plain kubectl proxy', async (t) => {
  // kube-apiserver answers `Cache-Control: no-cache, private`, which lets
  // Chromium keep the answer in its disk cache. The launcher answers
  // `no-store`; the app's fetches ask for `no-store` too, which is all a
  // plain kubectl proxy has. (A Secret's answer is far below the size the
  // apiserver compresses, so a cached copy would hold the bytes as sent.)
  const plain = await startProxy();
  t.after(async () => { await plain.stop(); });
  for (const [via, url] of [['the launcher', app.url], ['a plain kubectl proxy', plain.url]]) {
    const secret = `cache-probe-${Date.now() % 1000000}`;
    const value = `s3cr3t-${Math.random().toString(36).slice(2)}-cached`;
    const b64 = Buffer.from(value).toString('base64');
    kubectl('-n', 'demo-shop', 'create', 'secret', 'generic', secret, `--from-literal=password=${value}`);
    // A browser of its own (as launchBrowser starts one), whose profile
    // outlives it, to be read once it has closed and written its cache.
    const profile = mkdtempSync(join(tmpdir(), 'kubeglass-e2e-cache-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM, headless: true, viewport: { width: 1280, height: 800 }, args: [...CHROMIUM_FLAGS],
    });
    let closed = false;
    try {
      const page = context.pages()[0] ?? await context.newPage();
      await page.goto(`${url}#/o/secrets/demo-shop/${secret}`);
      await page.getByTestId('secret-reveal').waitFor({ timeout: 20000 });
      page.once('dialog', (d) => d.accept());
      await page.getByTestId('secret-reveal').click();
      const cell = page.getByTestId('secret-value');
      await cell.waitFor({ timeout: 10000 });
      await cell.click();
      assert.ok(await until(async () => (await cell.innerText()).includes(value), 5000), `${via}: revealed`);
      await context.close();
      closed = true;
      const cache = readdirSync(profile, { recursive: true }).filter((p) => /(^|\/)Cache(\/|$)/.test(p));
      assert.ok(cache.length > 0, `${via}: the profile has an HTTP cache folder to look in`);
      const holding = filesHolding(profile, [Buffer.from(value), Buffer.from(b64)]);
      assert.deepEqual(holding, [], `${via}: the Secret's value is on disk in the profile`);
    } finally {
      if (!closed) await context.close();
      rmSync(profile, { recursive: true, force: true });
      cleanUp(['-n', 'demo-shop', 'delete', 'secret', secret, '--ignore-not-found']);
    }
  }
});

test('a Secret made with kubectl apply and annotated like kapp shows no annotation value before Reveal, and every one after it', async (t) => {
  const secret = `applied-probe-${Date.now() % 1000000}`;
  const value = `s3cr3t-${Math.random().toString(36).slice(2)}-applied`;
  const b64 = Buffer.from(value).toString('base64');
  const team = `team-${Math.random().toString(36).slice(2)}`;
  const dir = mkdtempSync(join(tmpdir(), 'kubeglass-secret-'));
  const file = join(dir, 'secret.json');
  // kapp keeps the whole manifest, data and all, in its own annotation.
  const kapp = JSON.stringify({ apiVersion: 'v1', kind: 'Secret', data: { password: b64 } });
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'Secret',
    metadata: { name: secret, namespace: 'demo-shop',
      annotations: { team, 'kapp.k14s.io/original': kapp } },
    data: { password: b64 } }));
  kubectl('apply', '-f', file);
  rmSync(dir, { recursive: true, force: true });
  // The premise: the annotations hold the data, and metadata-only reads
  // (all the page makes) return annotations.
  const meta = JSON.parse(kubectl('get', '--raw', `/api/v1/namespaces/demo-shop/secrets/${secret}`));
  assert.ok(meta.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'].includes(b64));
  assert.ok(meta.metadata.annotations['kapp.k14s.io/original'].includes(b64));
  const b = await launchBrowser();
  t.after(async () => {
    await b.close();
    cleanUp(['-n', 'demo-shop', 'delete', 'secret', secret, '--ignore-not-found']);
  });
  const { page } = b;
  await page.goto(`${app.url}#/r/secrets?ns=demo-shop`);
  await page.getByTestId('resource-row').filter({ hasText: secret }).waitFor({ timeout: 20000 });
  await page.goto(`${app.url}#/o/secrets/demo-shop/${secret}`);
  await page.getByTestId('object-title').waitFor({ timeout: 20000 });
  // Every annotation's key shows, no value does: not in the chips, not
  // in the YAML, not anywhere in the page or its storage.
  const chips = page.getByTestId('annotations');
  for (const key of ['team', 'kapp.k14s.io/original', 'kubectl.kubernetes.io/last-applied-configuration']) {
    assert.ok(await until(async () => (await chips.innerText()).includes(key), 15000), `the key ${key} shows`);
  }
  await page.getByTestId('secret-reveal').waitFor({ timeout: 10000 });
  const held = await pageHoldings(page);
  for (const secretish of [b64, value, team]) {
    assert.ok(!held.includes(secretish), `${secretish} is not in the page or its storage`);
  }
  // After Reveal, the values are there, annotations' included.
  page.once('dialog', (d) => d.accept());
  await page.getByTestId('secret-reveal').click();
  await page.getByTestId('secret-key').first().waitFor({ timeout: 15000 });
  assert.ok(await until(async () => (await chips.innerText()).includes(`team=${team}`), 15000), 'revealed annotation');
  assert.ok((await chips.innerText()).includes('kapp.k14s.io/original='), 'the kapp copy is revealed too');
});

test('an Event about a hostile namespace and name renders as text, and its route is refused with a reason', async (t) => {
  const name = `hostile-${Date.now() % 1000000}`;
  const hostileNs = 'prod/secrets/db#';
  const hostileName = '%2e%2e';
  // core/v1 refuses an involvedObject.namespace other than the Event's own;
  // events.k8s.io/v1 takes any `regarding`, and the core view shows it as
  // the involvedObject.
  const manifest = JSON.stringify({
    apiVersion: 'events.k8s.io/v1', kind: 'Event',
    metadata: { name, namespace: 'demo-shop' },
    regarding: { apiVersion: 'v1', kind: 'ConfigMap', namespace: hostileNs, name: hostileName },
    reason: 'HostileProbe', note: 'an involved object that is not a path', type: 'Warning',
    action: 'Probe', reportingController: 'kubeglass.dev/e2e', reportingInstance: 'e2e-1',
    eventTime: new Date().toISOString().replace('Z', '000Z'),
  });
  execFileSync(process.env.KUBECTL, ['--kubeconfig', process.env.KUBECONFIG, 'create', '-f', '-'], { input: manifest });
  const b = await launchBrowser();
  t.after(async () => {
    await b.close();
    cleanUp(['-n', 'demo-shop', 'delete', 'event', name, '--ignore-not-found']);
  });
  const { page } = b;
  const net = recordNetwork(page);
  await page.goto(`${app.url}#/events`);
  const row = page.getByTestId('event-row').filter({ hasText: 'HostileProbe' });
  await row.waitFor({ timeout: 20000 });
  // Discovery knows ConfigMaps, so a fine object would be a link (checked
  // against a normal event first); this one is text.
  await page.getByTestId('event-object-link').first().waitFor({ timeout: 15000 });
  assert.equal(await row.getByTestId('event-object-link').count(), 0, 'no link for a hostile object');
  assert.ok((await row.innerText()).includes(hostileName), 'the name is shown as text');

  // The route a link would have made is refused, and says why.
  const href = `#/o/configmaps/${encodeURIComponent(hostileNs)}/${encodeURIComponent(hostileName)}`;
  await page.goto(`${app.url}${href}`);
  const error = page.getByTestId('route-error');
  await error.waitFor({ timeout: 10000 });
  assert.match(await error.innerText(), /namespace "prod\/secrets\/db#" is not a DNS-1123 label/);
  assert.equal(await page.getByTestId('object-actions').count(), 0, 'no Delete to click');
  await page.goto(`${app.url}#/o/configmaps/demo-shop/${encodeURIComponent(hostileName)}`);
  assert.ok(await until(async () => /'%'/.test(await page.getByTestId('route-error').innerText().catch(() => '')), 10000));
  assert.match(await page.getByTestId('route-error').innerText(), /contains '%'/);
  const bad = net.requests.filter((r) => /prod\/secrets|prod%2Fsecrets|%252e|%2e%2e|\/\.\.(\/|$)/i.test(r));
  assert.deepEqual(bad, [], 'no request was made with the hostile path');
});

test('a poisoned discovery cache is never read: the old shared key (deployments mapped to core secrets) is removed, a malformed entry is refetched, and the browser keeps nothing', async (t) => {
  const b = await launchBrowser();
  t.after(async () => { await b.close(); });
  const { page } = b;
  // Under kubectl glass the cache is in the launcher's store for the
  // context, whose scope is the same every run (crates/client/src/
  // discovery/cache.rs, scope_id; src/kube/start.rs).
  const scopeId = createHash('sha256').update('kubeglass discovery scope\0').update('kubectl glass').digest('hex').slice(0, 32);
  const token = app.token;
  const poisoned = (entryScope, plural) => JSON.stringify({
    scope: entryScope, fetched_at_ms: Date.now(),
    discovery: {
      groups: [{ name: '', versions: ['v1'], preferred_version: 'v1' }, { name: 'apps', versions: ['v1'], preferred_version: 'v1' }],
      resources: [{ group: '', version: 'v1', kind: 'Deployment', plural, singular: 'deployment',
        short_names: ['deploy'], categories: [], namespaced: true, verbs: ['get', 'list', 'watch', 'delete'],
        subresources: [], preferred: true }],
      aggregated: true,
    },
  });
  // Plant them before the page starts, as a program that had the token
  // could: the first version's shared key, and this scope's key holding a
  // malformed plural.
  const store = `${app.api}/glass/storage`;
  const mine = `kubeglass.discovery.v2 ${scopeId}`;
  for (const [key, value] of [['kubeglass.discovery.v1', poisoned('', 'secrets')], [mine, poisoned(scopeId, 'secrets/../configmaps')]]) {
    assert.equal((await fetch(`${store}/${encodeURIComponent(key)}`, { method: 'PUT', body: value })).status, 204);
  }
  const net = recordNetwork(page);
  await page.goto(`${app.url}#/r/deploy?ns=demo-shop`); // the poisoned short name
  await page.getByTestId('resource-row').filter({ hasText: 'frontend' }).waitFor({ timeout: 20000 });
  assert.equal(await page.getByTestId('resource-kind').innerText(), 'Deployment');
  assert.deepEqual(net.requests.filter((r) => r.includes('/secrets')), [], 'nothing was asked of secrets');
  let kept = {};
  assert.ok(await until(async () => {
    kept = await (await fetch(store)).json();
    return !('kubeglass.discovery.v1' in kept) && kept[mine]?.includes('"deployments"');
  }, 10000), `the shared key is removed and this scope's refetched: ${Object.keys(kept)}`);
  assert.ok(!kept[mine].includes('secrets/../'));
  // The capability token is in no key and no value of the store, and the
  // browser's own storage for the page's origin holds nothing.
  assert.ok(token.length >= 16 && !JSON.stringify(kept).includes(token), 'the token was written to the store');
  assert.equal(await page.evaluate(() => localStorage.length), 0, 'localStorage is empty');
});
