// An object page: conditions, labels, YAML and events, scaling from it, and
// an annotation full of HTML drawn as text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, kubectl, until, ARTIFACTS, cleanUp } from '../lib.mjs';

const SUFFIX = `${Date.now() % 1000000}`;
const CM = `e2e-xss-${SUFFIX}`;
const EVIL = '<img src=x onerror=alert(1)><script>alert(2)</script>';

const app = withApp({
  teardown() {
    cleanUp(
      ['-n', 'demo-shop', 'delete', 'configmap', CM, '--ignore-not-found'],
    );
  },
});

test('an object page shows conditions, labels, YAML and events; scaling from it changes the Deployment and records an Event', async () => {
  const { page } = app;
  page.removeAllListeners('dialog');
  await page.goto(`${app.url}#/o/deployments.apps/demo-shop/frontend`);
  await page.getByTestId('condition').first().waitFor({ timeout: 20000 });
  assert.match(await page.getByTestId('labels').innerText(), /app=frontend/);
  assert.match(await page.getByTestId('yaml').innerText(), /kind: Deployment/);
  assert.match(await page.getByTestId('yaml').innerText(), /managedFields: # \d+ entries, folded/);
  const before = Number(kubectl('-n', 'demo-shop', 'get', 'deploy', 'frontend', '-o', 'jsonpath={.spec.replicas}'));
  const target = before + 1;
  page.once('dialog', (d) => d.accept(String(target)));
  await page.getByTestId('action-scale').click();
  assert.ok(await until(() => Number(kubectl('-n', 'demo-shop', 'get', 'deploy', 'frontend', '-o', 'jsonpath={.spec.replicas}')) === target, 15000),
    'the Deployment was scaled');
  assert.ok(await until(() => kubectl('-n', 'demo-shop', 'get', 'events', '-o', 'json').includes(`to ${target}`), 15000),
    'an Event from kubeglass records it');
  await page.getByTestId('object-event').first().waitFor({ timeout: 15000 });
  await page.screenshot({ path: `${ARTIFACTS}/object-page.png` });
  kubectl('-n', 'demo-shop', 'scale', 'deploy', 'frontend', `--replicas=${before}`);
  // What it owns, through the owner-UID index: its ReplicaSet, whose page lists its pods.
  const rsName = JSON.parse(kubectl('-n', 'demo-shop', 'get', 'rs', '-l', 'app=frontend', '-o', 'json')).items
    .find((rs) => (rs.status.replicas ?? 0) > 0).metadata.name;
  const rsLink = page.getByTestId('owned-link').filter({ hasText: `ReplicaSet ${rsName}` });
  await rsLink.waitFor({ timeout: 15000 });
  await rsLink.click();
  await page.getByTestId('object-title').filter({ hasText: `ReplicaSet demo-shop/${rsName}` }).waitFor({ timeout: 15000 });
  // The pods kubectl says it owns (read again each try: the scale back may still be deleting one).
  const owned = () => JSON.parse(kubectl('-n', 'demo-shop', 'get', 'pods', '-o', 'json')).items
    .filter((p) => (p.metadata.ownerReferences ?? []).some((o) => o.name === rsName) && !p.metadata.deletionTimestamp)
    .map((p) => `Pod ${p.metadata.name}`);
  let expected = [];
  assert.ok(await until(async () => {
    expected = owned();
    const shown = await page.getByTestId('owned-link').allInnerTexts();
    return expected.length > 0 && expected.every((o) => shown.includes(o)) && shown.every((s) => s.startsWith(`Pod ${rsName}-`));
  }, 15000), `the ReplicaSet page lists its pods: ${expected.join(', ')}`);
});

test('an annotation full of HTML renders as text on the object page and runs nothing', async () => {
  const { page } = app;
  const dialogs = [];
  page.on('dialog', async (d) => { dialogs.push(d.message()); await d.dismiss(); });
  kubectl('-n', 'demo-shop', 'create', 'configmap', CM, '--from-literal=k=v');
  kubectl('-n', 'demo-shop', 'annotate', 'configmap', CM, `evil=${EVIL}`);
  await page.goto(`${app.url}#/o/configmaps/demo-shop/${CM}`);
  const chip = page.getByTestId('annotations-chip').filter({ hasText: 'evil=' });
  await chip.waitFor({ timeout: 15000 });
  assert.equal(await chip.innerText(), `evil=${EVIL}`);
  assert.match(await page.getByTestId('yaml').innerText(), /onerror=alert/);
  assert.equal(await page.locator('.object-page img').count(), 0, 'no <img> element was made');
  await page.waitForTimeout(500);
  assert.deepEqual(dialogs, [], 'nothing ran');
  page.removeAllListeners('dialog');
});
