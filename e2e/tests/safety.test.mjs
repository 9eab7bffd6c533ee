// Safety: the page runs under a Content-Security-Policy with no violations,
// and strings from the cluster render as text, never as HTML.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { kubectl, startProxy, launchBrowser } from '../lib.mjs';
import { execFileSync } from 'node:child_process';

const PORT = Number(process.env.E2E_PROXY_PORT ?? 18101) + 2;
const EVIL = '<img src=x onerror=alert(1)><script>alert(2)</script>';
const NAME = `xss-probe-${Date.now() % 1000000}`;
let proxy;
let browser;

before(async () => {
  proxy = await startProxy(PORT);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await proxy?.stop();
  try { kubectl('-n', 'demo-shop', 'delete', 'event', NAME, '--ignore-not-found'); } catch { /* best effort */ }
});

test('the page carries a Content-Security-Policy and breaks none of it', async () => {
  const { page } = browser;
  const violations = [];
  await page.exposeFunction('reportViolation', (v) => violations.push(v));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => window.reportViolation(`${e.violatedDirective} ${e.blockedURI}`));
  });
  const response = await page.goto(proxy.url);
  const html = await response.text();
  assert.match(html, /http-equiv="Content-Security-Policy"/);
  assert.match(html, /script-src 'self' 'wasm-unsafe-eval' 'sha256-/);
  assert.doesNotMatch(html, /unsafe-inline/);
  await page.getByTestId('server-version').waitFor({ timeout: 20000 });
  await page.getByTestId('event-row').first().waitFor({ timeout: 20000 });
  assert.deepEqual(violations, [], 'no CSP violations while the app runs (fetch, WebSocket, styles)');
});

test('an Event message full of HTML renders as text and runs nothing', async () => {
  const { page } = browser;
  const dialogs = [];
  page.on('dialog', async (d) => { dialogs.push(d.message()); await d.dismiss(); });
  await page.goto(proxy.url);
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
