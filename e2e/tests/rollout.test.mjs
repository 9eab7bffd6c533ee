// Rollout history against the real cluster: a Deployment's revisions from
// the ReplicaSets it owns and a StatefulSet's from its ControllerRevisions,
// the pod-template diff of two, and a roll back to revision 1 that restores
// the first image, as kubectl rollout undo.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, cleanUp, apply, deployment, kubectl, until } from '../lib.mjs';
import { objectPage } from '../pages.mjs';

const NAME = `e2e-rollout-${Date.now() % 1000000}`;
const IMAGE = (n) => `registry.example/e2e/rollout:${n}`;

const STS = `${NAME}-db`;
const statefulSet = (image) => ({
  apiVersion: 'apps/v1', kind: 'StatefulSet',
  metadata: { name: STS, namespace: 'demo-shop' },
  spec: {
    serviceName: STS, replicas: 1, selector: { matchLabels: { app: STS } },
    template: { metadata: { labels: { app: STS } }, spec: { containers: [{ name: 'db', image }] } },
  },
});

// `kubernetes.io/change-cause` says why; kubectl rollout undo carries the
// revision's over to the Deployment.
const withCause = (d, cause) => ({ ...d, metadata: { ...d.metadata, annotations: { 'kubernetes.io/change-cause': cause } } });

const image = () => kubectl('-n', 'demo-shop', 'get', 'deployment', NAME, '-o', 'jsonpath={.spec.template.spec.containers[0].image}');

const app = withApp({
  async setup() {
    apply(withCause(deployment(NAME, IMAGE(1)), 'first image'));
    apply(withCause(deployment(NAME, IMAGE(2)), 'second image'));
    apply(statefulSet(IMAGE(1)));
    kubectl('-n', 'demo-shop', 'set', 'image', `statefulset/${STS}`, `db=${IMAGE(2)}`);
  },
  teardown() {
    cleanUp(
      ['-n', 'demo-shop', 'delete', 'deployment', NAME, '--ignore-not-found', '--wait=false'],
      ['-n', 'demo-shop', 'delete', 'statefulset', STS, '--ignore-not-found', '--wait=false'],
    );
  },
});

test('the rollout history lists revisions with images, diffs their templates, and rolls back to revision 1', async () => {
  const { page } = app;
  await objectPage(page).open(app.url, 'deployments.apps', 'demo-shop', NAME);
  const revision = (n) => page.locator(`[data-testid=revision][data-revision="${n}"]`);
  await revision(2).waitFor({ timeout: 20000 });
  await revision(1).waitFor({ timeout: 20000 });
  assert.equal(await revision(2).getByTestId('revision-images').innerText(), IMAGE(2));
  assert.equal(await revision(1).getByTestId('revision-images').innerText(), IMAGE(1));
  assert.equal(await revision(2).getByTestId('revision-current').count(), 1, 'revision 2 runs now');
  // By default the last change: revision 1 → 2, the image.
  const diff = await page.getByTestId('revision-diff-row').allInnerTexts();
  assert.deepEqual(diff.map((r) => r.split('\t').join(' | ')), [`spec.containers[0].image | ${IMAGE(1)} | ${IMAGE(2)}`]);

  page.once('dialog', (d) => d.accept());
  await revision(1).getByTestId('rollback').click();
  assert.ok(await until(async () => image() === IMAGE(1), 15000), `rolled back: ${image()}`);
  // The controller makes revision 1's ReplicaSet revision 3, and it runs now.
  await revision(3).getByTestId('revision-current').waitFor({ timeout: 20000 });
  assert.equal(await revision(3).getByTestId('revision-images').innerText(), IMAGE(1));
  assert.match(await page.getByTestId('action-result').innerText(), new RegExp(`Rolled demo-shop/${NAME} back to revision 1`));
  // As kubectl rollout undo: revision 1's change-cause came with it, and
  // kubectl's history and the app's say the same.
  const history = () => Object.fromEntries(kubectl('-n', 'demo-shop', 'rollout', 'history', `deployment/${NAME}`)
    .split('\n').map((l) => /^(\d+)\s+(.*?)\s*$/.exec(l)).filter(Boolean).map((m) => [m[1], m[2]]));
  assert.ok(await until(async () => history()['3'] === 'first image', 10000), JSON.stringify(history()));
  assert.equal(history()['2'], 'second image');
  assert.ok(await until(async () => (await revision(3).getByTestId('revision-cause').innerText()) === 'first image', 10000),
    await revision(3).getByTestId('revision-cause').innerText());
  assert.ok(await until(async () => kubectl('-n', 'demo-shop', 'get', 'events', '--field-selector',
    `involvedObject.name=${NAME},reason=RolledBack`, '-o', 'name').trim() !== '', 10000), 'a RolledBack event');
});

test('a StatefulSet\'s history comes from its ControllerRevisions, and a roll back restores revision 1\'s image', async () => {
  const { page } = app;
  const stsImage = () => kubectl('-n', 'demo-shop', 'get', 'statefulset', STS, '-o', 'jsonpath={.spec.template.spec.containers[0].image}');
  await objectPage(page).open(app.url, 'statefulsets.apps', 'demo-shop', STS);
  const revision = (n) => page.locator(`[data-testid=revision][data-revision="${n}"]`);
  await revision(2).waitFor({ timeout: 20000 });
  assert.equal(await revision(1).getByTestId('revision-images').innerText(), IMAGE(1));
  assert.equal(await revision(2).getByTestId('revision-current').count(), 1, 'revision 2 runs now');
  const diff = await page.getByTestId('revision-diff-row').allInnerTexts();
  assert.deepEqual(diff.map((r) => r.split('\t').join(' | ')), [`spec.containers[0].image | ${IMAGE(1)} | ${IMAGE(2)}`]);
  page.once('dialog', (d) => d.accept());
  await revision(1).getByTestId('rollback').click();
  assert.ok(await until(async () => stsImage() === IMAGE(1), 15000), `rolled back: ${stsImage()}`);
  await revision(3).getByTestId('revision-current').waitFor({ timeout: 20000 });
  assert.equal(await revision(3).getByTestId('revision-images').innerText(), IMAGE(1));
  assert.deepEqual(app.errors, []);
});
