// The walking skeleton, end to end: real Chromium loads the app from a real
// `kubectl proxy` in front of the real local apiserver.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { apply, cleanUp, kubectl, startProxy, launchBrowser, shownPodCount, until, ARTIFACTS } from '../lib.mjs';
import { frame, overview } from '../pages.mjs';

// Unique per run: a namespace from an earlier run may still be terminating.
const NS = `e2e-skeleton-${Date.now() % 1000000}`;
let proxy;
let browser;

before(async () => {
  proxy = await startProxy();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await proxy?.stop();
  cleanUp(['delete', 'namespace', NS, '--ignore-not-found', '--wait=false']);
});

test('shows the server version and the kube-system namespace', async () => {
  const { page } = browser;
  await page.goto(proxy.url);
  const version = JSON.parse(kubectl('version', '-o', 'json')).serverVersion.gitVersion;
  await frame(page).ready();
  assert.equal(await frame(page).version(), version);
  const row = overview(page).namespace('kube-system');
  await row.waitFor({ timeout: 20000 });
  assert.equal(await row.count(), 1);
  await page.screenshot({ path: `${ARTIFACTS}/overview.png`, fullPage: true });
  assert.deepEqual(browser.errors, []);
});

test('the pod count follows creates and deletes live', async () => {
  const { page } = browser;
  await page.goto(proxy.url);
  assert.ok(await until(async () => Number.isFinite(await shownPodCount(page)), 20000));
  // The total matches the server's (polled: the demo CronJob adds pods now and then).
  // Pods being deleted are not counted by the app (nor here).
  const serverCount = () => JSON.parse(kubectl('get', 'pods', '-A', '-o', 'json'))
    .items.filter((p) => !p.metadata.deletionTimestamp).length;
  const same = await until(async () => (await shownPodCount(page)) === serverCount(), 30000, 300);
  assert.ok(same, `shown ${await shownPodCount(page)} pods, the server has ${serverCount()}`);

  // A namespace of our own, so other pods coming and going cannot disturb the counts.
  kubectl('create', 'namespace', NS);
  const row = overview(page).namespace(NS);
  await row.waitFor({ timeout: 15000 });
  const rowCount = () => overview(page).podsIn(NS);

  const before = await shownPodCount(page);
  let t = Date.now();
  kubectl('-n', NS, 'create', 'deployment', 'counted', '--image=registry.example/e2e:1', '--replicas=3');
  assert.ok(await until(async () => (await rowCount()) === 3, 30000), `namespace shows ${await rowCount()} pods, expected 3`);
  console.log(`  3 new pods shown ${Date.now() - t} ms after kubectl create deployment`);
  assert.ok((await shownPodCount(page)) >= before + 3 - 1, 'the total grew with them');

  t = Date.now();
  kubectl('-n', NS, 'scale', 'deployment', 'counted', '--replicas=1');
  assert.ok(await until(async () => (await rowCount()) === 1, 30000), `namespace shows ${await rowCount()} pods, expected 1`);
  console.log(`  scale to 1 shown ${Date.now() - t} ms after kubectl scale`);

  t = Date.now();
  kubectl('-n', NS, 'delete', 'deployment', 'counted');
  assert.ok(await until(async () => (await rowCount()) === 0, 30000), `namespace shows ${await rowCount()} pods, expected 0`);
  console.log(`  deletion shown ${Date.now() - t} ms after kubectl delete deployment`);
  assert.match(await row.innerText(), new RegExp(`${NS}\\s+Active\\s+0`));
  assert.ok(await until(async () => (await shownPodCount(page)) === serverCount(), 30000, 300), 'the total matches the server again');
});

test('says clearly when the proxy is gone and recovers when it returns', async () => {
  const { page } = browser;
  await page.goto(proxy.url);
  await frame(page).ready();
  assert.ok(await until(async () => Number.isFinite(await shownPodCount(page)), 20000));
  const count = await shownPodCount(page);
  // Connected first (the banner says "Connecting…" until the informers sync).
  await frame(page).banner().waitFor({ state: 'detached', timeout: 20000 });

  const serverCount = () => JSON.parse(kubectl('get', 'pods', '-A', '-o', 'json'))
    .items.filter((p) => !p.metadata.deletionTimestamp).length;
  await proxy.stop();
  let t = Date.now();
  const banner = frame(page).banner();
  await banner.waitFor({ timeout: 45000 });
  console.log(`  banner shown ${Date.now() - t} ms after the proxy stopped`);
  assert.match(await banner.innerText(), /Cannot reach the Kubernetes API/);
  // What was shown stays shown while the proxy is away.
  const frozen = await shownPodCount(page);
  assert.ok(Number.isFinite(frozen) && frozen > 0, `the pod count is still shown (${frozen})`);
  await page.waitForTimeout(1500);
  assert.equal(await shownPodCount(page), frozen);
  assert.ok(Math.abs(frozen - count) <= 2, `close to what was shown before (${count})`);
  await page.screenshot({ path: `${ARTIFACTS}/proxy-down.png` });
  // The cluster goes on while the page cannot see it: a pod comes, so the
  // count after reconnecting must differ from what was frozen.
  const before = serverCount();
  apply({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'while-away', namespace: NS },
    spec: { containers: [{ name: 'c', image: 'registry.example/e2e/away:1' }] } });
  assert.ok(await until(async () => serverCount() > before, 10000, 200), 'the pod exists');

  // The same proxy again: same port, same token (a new token would answer
  // the page's requests with 404, and the count would only seem to recover
  // while no pod came or went).
  proxy = await startProxy(undefined, { token: proxy.token, port: proxy.port });
  t = Date.now();
  await banner.waitFor({ state: 'detached', timeout: 60000 });
  console.log(`  reconnected ${Date.now() - t} ms after the proxy answered again`);
  // Once reconnected, the count is the server's again (the pod made while
  // away among them, and whatever the demo CronJob did meanwhile).
  if (!await until(async () => (await shownPodCount(page)) === serverCount(), 20000, 300)) {
    // Which namespace differs, and what the pod informer says of itself.
    const pods = JSON.parse(kubectl('get', 'pods', '-A', '-o', 'json')).items;
    const byNs = {};
    for (const p of pods) {
      const k = `${p.metadata.namespace}${p.metadata.deletionTimestamp ? ' (deleting)' : ''}`;
      byNs[k] = (byNs[k] ?? 0) + 1;
    }
    assert.fail(`shown ${await shownPodCount(page)} pods after reconnecting, the server has ${serverCount()}.
server: ${JSON.stringify(byNs)}
page: ${await overview(page).text()}
informer: ${await overview(page).informerState()}`);
  }
});
