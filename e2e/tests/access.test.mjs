// What a person may do, said plainly: the restricted user's forbidden
// messages and missing actions, a failure to ask that is not "read-only",
// and a user who may read one namespace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, cleanUp, startApp, startProxy, apply, deployment, kubectl, until, ARTIFACTS, REJECT_PATHS } from '../lib.mjs';

const SUFFIX = `${Date.now() % 1000000}`;
const TWO = `e2e-two-revisions-${SUFFIX}`;

const app = withApp();

test('the restricted user sees a clear forbidden message and no actions it may not use', async (t) => {
  const restricted = await startApp(process.env.RESTRICTED_KUBECONFIG);
  t.after(async () => {
    await restricted.stop();
    cleanUp(['-n', 'demo-shop', 'delete', 'deployment', TWO, '--ignore-not-found', '--wait=false']);
  });
  const { page } = app;
  await page.goto(`${restricted.url}#/r/nodes`);
  const err = page.getByTestId('informer-error');
  await err.waitFor({ timeout: 20000 });
  assert.match(await err.innerText(), /forbidden/i);
  await page.goto(`${restricted.url}#/o/deployments.apps/demo-shop/frontend`);
  await page.getByTestId('no-actions').waitFor({ timeout: 20000 });
  assert.equal(await page.getByTestId('action-delete').count(), 0);
  assert.equal(await page.getByTestId('action-scale').count(), 0);
  assert.equal(await page.getByTestId('action-edit').count(), 0, 'no Edit');
  // A Deployment with two revisions: the history shows (the user may read
  // ReplicaSets), with no Roll back to the older one once asked.
  apply(deployment(TWO, 'registry.example/e2e/views:1'));
  kubectl('-n', 'demo-shop', 'set', 'image', `deployment/${TWO}`, 'c=registry.example/e2e/views:2');
  await page.goto(`${restricted.url}#/o/deployments.apps/demo-shop/${TWO}`);
  await page.locator('[data-testid=rollout-history][data-rollback=refused]').waitFor({ timeout: 20000 });
  await page.locator('[data-testid=revision][data-revision="1"]').waitFor({ timeout: 20000 });
  assert.equal(await page.getByTestId('rollback').count(), 0, 'no Roll back');
  // Nor Create: the rules review said no.
  await page.getByTestId('create-denied').waitFor({ state: 'attached', timeout: 20000 });
  assert.equal(await page.getByTestId('nav-create').count(), 0, 'no Create');
  await page.getByTestId('condition').first().waitFor({ timeout: 20000 });
});

test('a failure to ask what one may do is said so, and is not "read-only"', async (t) => {
  const { page } = app;
  // This proxy refuses SelfSubjectAccessReviews, so the page cannot ask.
  const noReviews = await startProxy(undefined,
    { extra: [`--reject-paths=${REJECT_PATHS},^/apis/authorization\\.k8s\\.io/`] });
  t.after(async () => { await noReviews.stop(); });
  await page.goto(`${noReviews.url}#/o/deployments.apps/demo-shop/frontend`);
  const err = page.getByTestId('access-error');
  await err.waitFor({ timeout: 20000 });
  assert.match(await err.innerText(), /Could not ask the cluster what you may do here/);
  assert.equal(await page.getByTestId('no-actions').count(), 0, 'not told it is read-only');
  await page.getByTestId('condition').first().waitFor({ timeout: 20000 });
});

test('a user who may read one namespace gets a working app: each panel says what it may not list, and the namespace it types works', async (t) => {
  const { page } = app;
  const restricted = await startApp(process.env.RESTRICTED_KUBECONFIG);
  t.after(async () => { await restricted.stop(); });
  await page.goto(restricted.url);
  // Forbidden, not "connecting" or "unreachable".
  const banner = page.locator('[data-testid=connection-banner][data-problem=forbidden]');
  await banner.waitFor({ timeout: 20000 });
  assert.match(await page.getByTestId('nodes-problem').innerText(), /You cannot list nodes cluster-wide/);
  assert.match(await page.getByTestId('namespaces-problem').innerText(), /You cannot list namespaces/);
  assert.match(await page.getByTestId('deployments-problem').innerText(), /You cannot list deployments in all namespaces/);
  assert.equal(await page.locator('[data-testid=connection-banner][data-problem=unreachable]').count(), 0);
  await page.screenshot({ path: `${ARTIFACTS}/restricted-before.png` });
  // The namespace it may read, typed (it cannot be listed).
  await page.getByTestId('namespace-input').fill('demo-shop');
  await page.getByTestId('namespace-input').press('Enter');
  await page.locator('[data-testid=deployment-row][data-key="demo-shop/frontend"]').waitFor({ timeout: 20000 });
  assert.ok(await until(async () => Number(await page.getByTestId('pod-count').innerText()) > 0, 20000), 'pods counted');
  await page.getByTestId('event-row').first().waitFor({ timeout: 20000 });
  await page.getByTestId('connection-banner').waitFor({ state: 'detached', timeout: 10000 });
  assert.equal(await page.getByTestId('deployments-problem').count(), 0);
  assert.match(await page.getByTestId('nodes-problem').innerText(), /You cannot list nodes/, 'still said');
  await page.screenshot({ path: `${ARTIFACTS}/restricted-after.png` });
  // Remembered, and the tables follow it.
  await page.goto('about:blank');
  await page.goto(restricted.url);
  await page.locator('[data-testid=deployment-row][data-key="demo-shop/frontend"]').waitFor({ timeout: 20000 });
  await page.getByTestId('nav-pods').click();
  await page.getByTestId('resource-row').first().waitFor({ timeout: 20000 });
  assert.match(page.url(), /#\/r\/pods\?ns=demo-shop$/);
  assert.equal(await page.getByTestId('informer-error').count(), 0);
});
