// An object's History: the versions the tab has seen, with the manager and a
// one-line summary of each change, and the difference between two of them,
// against the real cluster (kubectl scale and kubectl label as the changes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, cleanUp, apply, deployment, kubectl, until } from '../lib.mjs';
import { objectPage } from '../pages.mjs';

const NAME = `e2e-history-${Date.now() % 1000000}`;

const app = withApp({
  async setup() {
    apply(deployment(NAME, 'registry.example/e2e/history:1'));
  },
  teardown() {
    cleanUp(
      ['-n', 'demo-shop', 'delete', 'deployment', NAME, '--ignore-not-found', '--wait=false'],
    );
  },
});

test('History shows a kubectl scale and a kubectl label as versions with their managers and summaries, and diffs any two', async () => {
  const { page } = app;
  await objectPage(page).open(app.url, 'deployments.apps', 'demo-shop', NAME);
  await page.getByTestId('history-version').first().waitFor({ timeout: 20000 });
  const summaries = () => page.getByTestId('history-summary').allInnerTexts();

  kubectl('-n', 'demo-shop', 'scale', 'deployment', NAME, '--replicas=3');
  assert.ok(await until(async () => (await summaries()).some((s) => /spec\.replicas 1 → 3.*by (.*, )?kubectl \(scale\)/.test(s)), 20000),
    `the scale is a version: ${await summaries()}`);
  kubectl('-n', 'demo-shop', 'label', 'deployment', NAME, 'team=history-probe');
  assert.ok(await until(async () => (await summaries()).some((s) => /metadata\.labels\.team = history-probe.*, by (.*, )?kubectl-label/.test(s)), 20000),
    `the label is a version: ${await summaries()}`);

  // Newest first; the scale came before the label.
  const all = await summaries();
  const scaled = all.findIndex((s) => /spec\.replicas 1 → 3/.test(s));
  const labelled = all.findIndex((s) => /labels\.team = history-probe/.test(s));
  assert.ok(labelled < scaled, `newest first: ${all}`);
  assert.equal(all.at(-1), 'first seen');
  assert.match(await page.getByTestId('history-heading').innerText(), /^\d+ versions seen since this tab opened/);

  // The diff between the first version and the newest names both changes.
  const rows = page.getByTestId('history-version');
  await rows.last().locator('input[name=history-from]').check();
  await rows.first().locator('input[name=history-to]').check();
  const diff = async () => page.getByTestId('history-diff-row').allInnerTexts();
  assert.ok(await until(async () => {
    const d = await diff();
    return d.some((r) => /^spec\.replicas\s+1\s+3$/.test(r)) && d.some((r) => /^metadata\.labels\.team\s+—\s+history-probe$/.test(r));
  }, 10000), `the diff: ${await diff()}`);

  // Deleted: the history stays, and says so.
  kubectl('-n', 'demo-shop', 'delete', 'deployment', NAME, '--wait=false');
  assert.ok(await until(async () => /the object is gone/.test(await page.getByTestId('history-heading').innerText()), 20000));
  assert.equal((await summaries())[0], 'deleted');
  assert.deepEqual(app.errors, []);
});
