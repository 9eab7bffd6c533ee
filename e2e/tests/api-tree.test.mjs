// The API page's discovery tree follows a CRD created during the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, apply, kubectl, ARTIFACTS, cleanUp } from '../lib.mjs';
import { apiTree } from '../pages.mjs';

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
  const tree = apiTree(page);
  await page.goto(`${app.url}#/api`);
  await tree.loaded();
  await tree.crdBadge('databases.demo.kubeglass.dev').waitFor({ timeout: 15000 });
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
  const entry = tree.resource(CRD);
  const t = Date.now();
  await entry.waitFor({ timeout: 30000 });
  console.log(`  new CRD in the tree ${Date.now() - t} ms after kubectl apply`);
  await tree.search(plural);
  assert.equal(await tree.resources().count(), 1, 'the search finds it alone');
  await page.screenshot({ path: `${ARTIFACTS}/api-tree.png` });
  kubectl('delete', 'crd', CRD);
  await entry.waitFor({ state: 'detached', timeout: 30000 });
});
