// Scaling from the UI: the Deployment changes, and the Event kubeglass
// records shows both in `kubectl get events` and in the app's event stream.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, startProxy, launchBrowser, until, ARTIFACTS } from '../lib.mjs';

const PORT = Number(process.env.E2E_PROXY_PORT ?? 18101) + 1;
let proxy;
let browser;

before(async () => {
  proxy = await startProxy(PORT);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await proxy?.stop();
});

test('scaling a Deployment from the UI records an Event', async () => {
  const { page } = browser;
  await page.goto(proxy.url);
  const row = page.locator('[data-testid=deployment-row][data-key="demo-shop/checkout"]');
  await row.waitFor({ timeout: 20000 });
  const replicas = () => Number(kubectl('-n', 'demo-shop', 'get', 'deployment', 'checkout', '-o', 'jsonpath={.spec.replicas}'));
  const before = replicas();
  assert.equal(Number(await row.getByTestId('desired').innerText()), before);

  const t0 = Date.now();
  await row.getByTestId('scale-up').click();
  assert.ok(await until(async () => replicas() === before + 1, 15000, 100), `replicas stayed at ${replicas()}`);
  console.log(`  deployment scaled ${Date.now() - t0} ms after the click`);
  await page.getByTestId('action-result').filter({ hasText: `Scaled demo-shop/checkout to ${before + 1}` }).waitFor({ timeout: 10000 });

  const want = `Scaled from ${before} to ${before + 1} replicas by kubeglass`;
  const fromKubectl = await until(async () =>
    kubectl('-n', 'demo-shop', 'get', 'events', '--field-selector', 'involvedObject.name=checkout,reason=Scaled', '-o', 'json')
      .includes(want), 15000, 200);
  assert.ok(fromKubectl, 'kubectl get events shows the Event');
  const events = JSON.parse(kubectl('-n', 'demo-shop', 'get', 'events', '--field-selector', 'involvedObject.name=checkout,reason=Scaled', '-o', 'json'));
  const mine = events.items.find((e) => e.message === want);
  assert.equal(mine.reportingComponent, 'kubeglass');
  assert.equal(mine.source.component, 'kubeglass');

  const inStream = page.getByTestId('event-row').filter({ hasText: 'deployment/checkout' }).filter({ hasText: want }).first();
  await inStream.waitFor({ timeout: 15000 });
  assert.match(await inStream.innerText(), /kubeglass/);
  await page.screenshot({ path: `${ARTIFACTS}/scaled.png`, fullPage: true });

  await row.getByTestId('scale-down').click();
  assert.ok(await until(async () => replicas() === before, 15000, 100), 'scaled back down');
});

test('a Warning event from a real controller shows in the stream', async () => {
  const { page } = browser;
  await page.goto(proxy.url);
  // The demo's gpu-trainer can never be scheduled: the scheduler reports it.
  const warning = page.locator('[data-testid=event-row].event-warning').filter({ hasText: 'FailedScheduling' });
  await warning.first().waitFor({ timeout: 30000 });
  assert.match(await warning.first().innerText(), /gpu-trainer/);
});
