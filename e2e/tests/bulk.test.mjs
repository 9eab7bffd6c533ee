// Actions on many objects, through the real path: rows marked with the box,
// Shift-click, Space and "all that match the filter"; the marks survive a
// new sort; one confirmation lists the objects; each object's own result;
// kubectl agrees. A user whose Role names only some objects has only those
// sent, the rest said why. A running pod's row offers a Shell where RBAC
// allows it, and the restricted user sees no verb it cannot use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, startApp, launchBrowser, cleanUp, apply, kubectl, until } from '../lib.mjs';
import { bulkBar } from '../pages.mjs';

const SUFFIX = `${Date.now() % 1000000}`;
const NS = `e2e-many-${SUFFIX}`;
const NS_R = `e2e-some-${SUFFIX}`;
const list = (items) => ({ apiVersion: 'v1', kind: 'List', items });
const configMaps = (ns, prefix, n) => Array.from({ length: n }, (_, i) => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${prefix}-${i}`, namespace: ns }, data: { i: String(i) },
}));
const names = (ns) => kubectl('-n', ns, 'get', 'configmaps', '-o', 'jsonpath={.items[*].metadata.name}')
  .split(' ').filter((n) => n && n !== 'kube-root-ca.crt');

const app = withApp({
  setup() {
    apply(list([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS_R } },
    ]));
    apply(list([...configMaps(NS, 'bulk', 50), ...configMaps(NS, 'keep', 3), ...configMaps(NS_R, 'cm', 10)]));
    // The restricted user (view on demo-shop only) may read NS_R's
    // ConfigMaps, and delete only cm-0 … cm-3, by name.
    apply(list([
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'viewer-bulk', namespace: NS_R },
        rules: [
          { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
          { apiGroups: [''], resources: ['configmaps'], verbs: ['delete'], resourceNames: ['cm-0', 'cm-1', 'cm-2', 'cm-3'] },
        ] },
      { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'viewer-bulk', namespace: NS_R },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'viewer-bulk' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'viewer' }] },
    ]));
  },
  teardown() {
    cleanUp(['delete', 'namespace', NS, NS_R, '--wait=false']);
  },
});

/** The keys of the rows shown, in screen order. */
async function shownKeys(page) {
  return page.evaluate(() => [...document.querySelectorAll('[data-testid=resource-row]')]
    .filter((r) => r.dataset.key)
    .sort((a, b) => Number(a.getAttribute('aria-rowindex')) - Number(b.getAttribute('aria-rowindex')))
    .map((r) => r.dataset.key));
}

const marked = (page) => page.evaluate(() => [...document.querySelectorAll('[data-testid=resource-row][data-marked=true]')]
  .map((r) => r.dataset.key).sort());

test('marks: the box, Shift-click, Space and all that match; they survive a new sort', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/r/configmaps?ns=${NS}`);
  await page.locator(`[data-testid=resource-row][data-key="${NS}/bulk-0"]`).waitFor({ timeout: 30000 });
  await page.getByTestId('row-filter').fill('keep-');
  await page.locator(`[data-testid=resource-row][data-key="${NS}/bulk-0"]`).waitFor({ state: 'detached' });
  await page.locator(`[data-testid=resource-row][data-key="${NS}/keep-1"]`).waitFor();
  const [first, middle, last] = await shownKeys(page);
  assert.deepEqual([first, middle, last], [`${NS}/keep-0`, `${NS}/keep-1`, `${NS}/keep-2`]);
  // The box marks one row; Shift-click on the third marks the range, the
  // one between included.
  await page.locator(`[data-testid=resource-row][data-key="${first}"] [data-testid=row-mark]`).click();
  assert.equal(await bulkBar(page).count(), '1 marked');
  await page.locator(`[data-testid=resource-row][data-key="${last}"] [data-testid=row-mark]`).click({ modifiers: ['Shift'] });
  assert.equal(await bulkBar(page).count(), '3 marked');
  // Ctrl-click on a row unmarks it, and does not open it.
  await page.locator(`[data-testid=resource-row][data-key="${middle}"] .vcell.name`).click({ modifiers: ['Control'] });
  assert.deepEqual(await marked(page), [first, last]);
  // Sorted the other way round: the same two rows, still marked.
  // (The first click sorts by name ascending, the second descending.)
  await page.getByTestId('column-header').filter({ hasText: /^Name/ }).click();
  await page.getByTestId('column-header').filter({ hasText: /^Name/ }).click();
  assert.ok(await until(async () => (await shownKeys(page))[0] === last, 5000), 'sorted by name, descending');
  assert.deepEqual(await marked(page), [first, last]);
  assert.match(page.url(), /#\/r\/configmaps/);
  // Space (k9s's mark) marks the cursor's row, the first shown.
  await bulkBar(page).clear();
  await bulkBar(page).gone();
  await page.getByTestId('row-filter').blur();
  await page.keyboard.press('Space');
  assert.deepEqual(await marked(page), [last]);
  await bulkBar(page).clear();
  // A plain click still opens the row.
  await page.locator(`[data-testid=resource-row][data-key="${first}"] .vcell.name`).click();
  await page.waitForURL(/#\/o\/configmaps\//);
});

test('deleting 50 ConfigMaps marked by a filter: one confirmation, a result each, kubectl agrees', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/`);
  await page.goto(`${app.url}#/r/configmaps?ns=${NS}`);
  await page.locator(`[data-testid=resource-row][data-key="${NS}/bulk-0"]`).waitFor({ timeout: 30000 });
  await page.getByTestId('row-filter').fill('bulk-');
  await page.getByTestId('mark-all').check();
  assert.equal(await bulkBar(page).count(), '50 marked');
  // Every verb a ConfigMap has, none it has not.
  for (const v of ['label', 'annotate', 'delete']) await bulkBar(page).verb(v).waitFor({ timeout: 15000 });
  for (const v of ['scale', 'restart', 'cordon', 'drain']) assert.equal(await bulkBar(page).verb(v).count(), 0, v);
  await bulkBar(page).verb('delete').click();
  const confirm = bulkBar(page).confirm;
  assert.match(await confirm.question(),
    new RegExp(`^Delete 50 configmaps: ${NS}/bulk-0, ${NS}/bulk-1, ${NS}/bulk-10, ${NS}/bulk-11, ${NS}/bulk-12 and 45 more\\?$`));
  await confirm.tally('50 will be sent; 0 you may not delete');
  assert.equal(kubectl('-n', NS, 'get', 'configmap', 'bulk-7', '-o', 'name').trim(), 'configmap/bulk-7', 'nothing sent before the confirmation');
  const t0 = Date.now();
  await confirm.go();
  await confirm.tally('50 done, 0 refused, 0 failed, 0 to go', 60000);
  console.log(`  50 deletes done ${Date.now() - t0} ms after the click`);
  assert.equal(await confirm.results('done').count(), 50);
  assert.match(await confirm.result(`${NS}/bulk-9`).innerText(), new RegExp(`Deleted ${NS}/bulk-9`));
  assert.ok(await until(() => names(NS).join(' ') === 'keep-0 keep-1 keep-2', 20000), `kubectl still lists ${names(NS)}`);
  // The deleted rows leave the marks.
  await bulkBar(page).countIs('0 marked');
  await confirm.close();
  await bulkBar(page).gone();
});

test('Label and Annotate on the marked rows: what is typed is checked, then each object is patched', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/`);
  await page.goto(`${app.url}#/r/configmaps?ns=${NS}`);
  await page.locator(`[data-testid=resource-row][data-key="${NS}/keep-0"]`).waitFor({ timeout: 30000 });
  await page.getByTestId('row-filter').fill('keep-');
  await page.getByTestId('mark-all').check();
  assert.equal(await bulkBar(page).count(), '3 marked');
  await bulkBar(page).verb('label').click();
  const confirm = bulkBar(page).confirm;
  await confirm.tally('3 will be sent');
  // A label value with a space is refused before anything is sent.
  await confirm.input().fill('tier=gold plated');
  await confirm.go();
  await confirm.root.getByTestId('bulk-mistake').waitFor();
  await confirm.input().fill('tier=gold');
  await confirm.go();
  await confirm.tally('3 done, 0 refused, 0 failed, 0 to go', 30000);
  assert.equal(kubectl('-n', NS, 'get', 'configmaps', '-l', 'tier=gold', '-o', 'jsonpath={.items[*].metadata.name}'), 'keep-0 keep-1 keep-2');
  await confirm.close();
  // Annotations take the rest of the line, commas and spaces included.
  await bulkBar(page).verb('annotate').click();
  await confirm.tally('3 will be sent');
  await confirm.input().fill('example.com/owner=the shop team, since 2024');
  await confirm.go();
  await confirm.tally('3 done', 30000);
  for (const n of ['keep-0', 'keep-1', 'keep-2']) {
    assert.equal(kubectl('-n', NS, 'get', 'configmap', n, '-o', 'jsonpath={.metadata.annotations.example\\.com/owner}'), 'the shop team, since 2024');
  }
  await confirm.close();
  await bulkBar(page).clear();
});

test('nodes: Cordon, Uncordon and Drain on the marked, one node after another', async (t) => {
  const { page } = app;
  const nodes = [`e2e-bulk-a-${SUFFIX}`, `e2e-bulk-b-${SUFFIX}`];
  apply(list(nodes.map((name) => ({ apiVersion: 'v1', kind: 'Node',
    metadata: { name, annotations: { 'kwok.x-k8s.io/node': 'fake' }, labels: { type: 'kwok', 'e2e-bulk': SUFFIX } },
    status: { allocatable: { cpu: '4', memory: '8Gi', pods: '10' }, capacity: { cpu: '4', memory: '8Gi', pods: '10' } } }))));
  const unschedulable = () => nodes.map((n) => kubectl('get', 'node', n, '-o', 'jsonpath={.spec.unschedulable}'));
  t.after(async () => { cleanUp(['delete', 'node', ...nodes, '--ignore-not-found']); });
  await page.goto(`${app.url}#/`);
  await page.goto(`${app.url}#/r/nodes?l=e2e-bulk%3D${SUFFIX}`);
  await page.locator(`[data-testid=resource-row][data-key="${nodes[1]}"]`).waitFor({ timeout: 30000 });
  await page.getByTestId('mark-all').check();
  assert.equal(await bulkBar(page).count(), '2 marked');
  const confirm = bulkBar(page).confirm;
  for (const [verb, want] of [['cordon', 'true'], ['uncordon', '']]) {
    await bulkBar(page).verb(verb).click({ timeout: 15000 });
    await confirm.tally('2 will be sent');
    await confirm.go();
    await confirm.tally('2 done, 0 refused, 0 failed, 0 to go', 30000);
    assert.deepEqual(unschedulable(), [want, want], verb);
    await confirm.close();
  }
  // Drain: each node cordoned and (holding no pods) drained at once.
  await bulkBar(page).verb('drain').click();
  await confirm.tally('2 will be sent');
  await confirm.go();
  await confirm.tally('2 done, 0 refused, 0 failed, 0 to go', 60000);
  assert.match(await confirm.result(`${nodes[0]}`).innerText(), /is drained: 0 pods evicted/);
  assert.deepEqual(unschedulable(), ['true', 'true']);
});

test('a user who may delete only some: the rest are not sent, and say why', async (t) => {
  const restricted = await startApp(process.env.RESTRICTED_KUBECONFIG);
  const browser = await launchBrowser();
  t.after(async () => {
    await browser.close();
    await restricted.stop();
  });
  const { page } = browser;
  const deletes = [];
  page.on('request', (r) => { if (r.method() === 'DELETE') deletes.push(decodeURIComponent(new URL(r.url()).pathname).split('/').pop()); });
  await page.goto(`${restricted.url}#/r/configmaps?ns=${NS_R}`);
  await page.locator(`[data-testid=resource-row][data-key="${NS_R}/cm-9"]`).waitFor({ timeout: 30000 });
  await page.getByTestId('row-filter').fill('cm-');
  await page.getByTestId('mark-all').check();
  assert.equal(await bulkBar(page).count(), '10 marked');
  await bulkBar(page).verb('delete').waitFor({ timeout: 15000 });
  // No patch: no Label, no Annotate.
  assert.equal(await bulkBar(page).verb('label').count(), 0);
  assert.equal(await bulkBar(page).verb('annotate').count(), 0);
  await bulkBar(page).verb('delete').click();
  const confirm = bulkBar(page).confirm;
  await confirm.tally('4 will be sent; 6 you may not delete');
  const r9 = confirm.result(`${NS_R}/cm-9`);
  assert.equal(await r9.getAttribute('data-state'), 'refused');
  assert.equal(await r9.locator('.bulk-fate').innerText(), `not sent: you may not delete configmaps in ${NS_R}`);
  await confirm.go();
  await confirm.tally('4 done, 6 refused, 0 failed, 0 to go', 30000);
  assert.equal(await r9.getAttribute('data-sent'), 'false');
  assert.ok(await until(() => names(NS_R).join(' ') === 'cm-4 cm-5 cm-6 cm-7 cm-8 cm-9', 20000), `kubectl lists ${names(NS_R)}`);
  // A DELETE went for each of the four, and none for the six.
  assert.deepEqual(deletes.sort(), ['cm-0', 'cm-1', 'cm-2', 'cm-3']);

  // Where it may do nothing: marks, and no verb.
  await page.goto(`${restricted.url}#/r/configmaps?ns=demo-shop`);
  const row = page.locator('[data-testid=resource-row][data-key^="demo-shop/"]').first();
  await row.waitFor({ timeout: 30000 });
  await row.locator('[data-testid=row-mark]').click();
  await page.getByTestId('bulk-none').waitFor({ timeout: 15000 });
  assert.equal(await page.locator('[data-testid=bulk-bar] button[data-testid^="bulk-"]:not([data-testid=bulk-clear])').count(), 0);
  // No shell for a user who may not exec.
  await page.goto(`${restricted.url}#/r/pods?ns=demo-shop`);
  // Once the review's answer is in: no.
  await page.locator('[data-testid=resource-row][data-key^="demo-shop/"] [data-shell=no]').first().waitFor({ state: 'attached', timeout: 30000 });
  assert.equal(await page.locator('[data-shell=asking], [data-shell=yes]').count(), 0);
  assert.equal(await page.getByTestId('row-shell').count(), 0);
});

test('a running pod\'s row offers a Shell, which opens the shell page', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/r/pods?ns=demo-shop`);
  const row = page.locator('[data-testid=resource-row]').filter({ has: page.getByTestId('row-shell') }).first();
  await row.waitFor({ timeout: 30000 });
  const key = await row.getAttribute('data-key');
  const link = row.getByTestId('row-shell');
  assert.equal(kubectl('-n', 'demo-shop', 'get', 'pod', key.split('/')[1], '-o', 'jsonpath={.status.phase}'), 'Running');
  await link.click();
  await page.waitForURL(new RegExp(`#/exec/demo-shop/${key.split('/')[1]}$`));
});
