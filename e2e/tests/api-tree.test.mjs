// The API page's discovery tree follows a CRD created during the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, apply, kubectl, ARTIFACTS, cleanUp } from '../lib.mjs';

const SUFFIX = `${Date.now() % 1000000}`;
const CRD_GROUP = 'e2e.kubeglass.dev';
const CRD = `probes${SUFFIX}.${CRD_GROUP}`;

const app = withApp({
  teardown() {
    cleanUp(
      ['delete', 'crd', CRD, '--ignore-not-found'],
    );
  },
});

test('a CRD created during the test appears in the API tree, marked, and goes when deleted', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/api`);
  await page.getByTestId('api-resource').first().waitFor({ timeout: 20000 });
  await page.locator('[data-testid="api-resource"][data-name="databases.demo.kubeglass.dev"] [data-testid="crd-badge"]')
    .waitFor({ timeout: 15000 });
  const plural = `probes${SUFFIX}`;
  apply({
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
    metadata: { name: CRD },
    spec: {
      group: CRD_GROUP, scope: 'Namespaced',
      names: { plural, singular: `probe${SUFFIX}`, kind: `Probe${SUFFIX}` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
    },
  });
  const entry = page.locator(`[data-testid="api-resource"][data-name="${CRD}"]`);
  const t = Date.now();
  await entry.waitFor({ timeout: 30000 });
  console.log(`  new CRD in the tree ${Date.now() - t} ms after kubectl apply`);
  await page.getByTestId('api-search').fill(plural);
  assert.equal(await page.getByTestId('api-resource').count(), 1, 'the search finds it alone');
  await page.screenshot({ path: `${ARTIFACTS}/api-tree.png` });
  kubectl('delete', 'crd', CRD);
  await entry.waitFor({ state: 'detached', timeout: 30000 });
});
