// The walking skeleton, end to end: real Chromium loads the app from a real
// `kubectl proxy` in front of the real local apiserver.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, startProxy, launchBrowser, shownPodCount, until, ARTIFACTS } from '../lib.mjs';

const PORT = Number(process.env.E2E_PROXY_PORT ?? 18101);
let proxy;
let browser;

before(async () => {
  proxy = await startProxy(PORT);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await proxy?.stop();
  try { kubectl('delete', 'namespace', 'e2e-skeleton', '--ignore-not-found', '--wait=false'); } catch { /* best effort */ }
});

test('shows the server version and the kube-system namespace', async () => {
  const { page } = browser;
  await page.goto(proxy.url);
  const version = JSON.parse(kubectl('version', '-o', 'json')).serverVersion.gitVersion;
  await page.getByTestId('server-version').waitFor({ timeout: 20000 });
  assert.equal((await page.getByTestId('server-version').innerText()).trim(), version);
  const row = page.getByTestId('namespace-row').filter({ hasText: 'kube-system' });
  await row.waitFor({ timeout: 20000 });
  assert.equal(await row.count(), 1);
  await page.screenshot({ path: `${ARTIFACTS}/overview.png`, fullPage: true });
  assert.deepEqual(browser.errors, []);
});

test('the pod count follows creates and deletes live', async () => {
  const { page } = browser;
  await page.goto(proxy.url);
  await until(async () => Number.isFinite(await shownPodCount(page)), 20000);
  // Wait for the demo workload to settle so the baseline is the server's.
  const serverCount = () => kubectl('get', 'pods', '-A', '--no-headers', '-o', 'name').split('\n').filter(Boolean).length;
  const stable = await until(async () => (await shownPodCount(page)) === serverCount(), 30000, 500);
  assert.ok(stable, `shown ${await shownPodCount(page)} pods, server has ${serverCount()}`);
  const before = await shownPodCount(page);

  kubectl('create', 'namespace', 'e2e-skeleton');
  const t0 = Date.now();
  kubectl('-n', 'e2e-skeleton', 'create', 'deployment', 'counted', '--image=registry.example/e2e:1', '--replicas=3');
  const up = await until(async () => (await shownPodCount(page)) === before + 3, 30000);
  assert.ok(up, `expected ${before + 3} pods, shown ${await shownPodCount(page)}`);
  console.log(`  pod count reached +3 ${Date.now() - t0} ms after kubectl create deployment`);

  const t1 = Date.now();
  kubectl('-n', 'e2e-skeleton', 'scale', 'deployment', 'counted', '--replicas=1');
  const down = await until(async () => (await shownPodCount(page)) === before + 1, 30000);
  assert.ok(down, `expected ${before + 1} pods after scaling down, shown ${await shownPodCount(page)}`);
  console.log(`  pod count went to +1 ${Date.now() - t1} ms after kubectl scale --replicas=1`);

  const row = page.getByTestId('namespace-row').filter({ hasText: 'e2e-skeleton' });
  await row.waitFor({ timeout: 10000 });
  assert.match(await row.innerText(), /e2e-skeleton\s+Active\s+1/);
});

test('says clearly when the proxy is gone and recovers when it returns', async () => {
  const { page } = browser;
  await page.goto(proxy.url);
  await page.getByTestId('server-version').waitFor({ timeout: 20000 });
  await until(async () => Number.isFinite(await shownPodCount(page)), 20000);
  const count = await shownPodCount(page);

  await proxy.stop();
  const banner = page.getByTestId('connection-banner');
  await banner.waitFor({ timeout: 45000 });
  assert.match(await banner.innerText(), /Cannot reach the Kubernetes API/);
  // What was shown stays shown.
  assert.equal(await shownPodCount(page), count);
  await page.screenshot({ path: `${ARTIFACTS}/proxy-down.png` });

  proxy = await startProxy(PORT);
  await banner.waitFor({ state: 'detached', timeout: 60000 });
  assert.equal(await shownPodCount(page), count);
});
