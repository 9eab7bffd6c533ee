// Partial discovery: an APIService that points at a Service that does not
// exist (a real kube-aggregator answer: the group version is Stale, and its
// legacy document answers 503) must not break discovery as a whole. The API
// page names the failed group with the APIService's reason; tables and the
// palette keep working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, apply, cleanUp, kubectl, until } from '../lib.mjs';
import { frame, palette } from '../pages.mjs';

const NAME = 'v1beta1.missing.kubeglass.dev';

const app = withApp({
  async setup() {
    apply({
      apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService',
      metadata: { name: NAME },
      spec: { group: 'missing.kubeglass.dev', version: 'v1beta1', groupPriorityMinimum: 100,
        versionPriority: 100, insecureSkipTLSVerify: true,
        service: { name: 'no-such-service', namespace: 'default' } },
    });
    // Wait until the aggregator has judged it (Available=False).
    assert.ok(await until(async () => kubectl('get', 'apiservice', NAME, '-o',
      'jsonpath={.status.conditions[?(@.type=="Available")].status}').trim() === 'False', 20000, 200),
    'the aggregator marked the APIService unavailable');
  },
  teardown() {
    // An unavailable APIService blocks namespace deletion: always remove it.
    cleanUp(['delete', 'apiservice', NAME, '--ignore-not-found']);
  },
});

test('an unavailable APIService is reported on the API page, and every other view works', async () => {
  const { page, errors } = app;
  await page.goto(`${app.url}#/api`);
  const failures = page.getByTestId('api-failures');
  await failures.waitFor({ timeout: 20000 });
  const text = await failures.innerText();
  assert.match(text, /missing\.kubeglass\.dev\/v1beta1/);
  assert.match(text, /ServiceNotFound/, text);
  assert.ok(await page.getByTestId('api-resource').count() > 20, 'the other groups are in the tree');

  await page.goto(`${app.url}#/r/pods?ns=demo-shop`);
  await page.getByTestId('resource-row').first().waitFor({ timeout: 20000 });

  await page.goto(`${app.url}#/`);
  await frame(page).ready();
  await palette(page).run('deploy');
  assert.ok(await until(async () => page.url().includes('#/r/deployments.apps'), 10000));
  await page.getByTestId('resource-row').first().waitFor({ timeout: 20000 });
  assert.deepEqual(errors, [], 'no page errors');
});
