// Live resource tables in real Chromium against the real cluster: a pod
// made and deleted with kubectl, the first page drawn while the informer
// lists, a CRD's printer columns with sorting, filtering and keys, rows in
// screen order for assistive technology, and the namespace menu of a deep link.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, apply, kubectl, until, ARTIFACTS, cleanUp } from '../lib.mjs';
import { table, frame, accessibleRows } from '../pages.mjs';

const SUFFIX = `${Date.now() % 1000000}`;
const POD = `e2e-pod-${SUFFIX}`;
const rowKeys = (page) => table(page).keys();

const app = withApp({
  teardown() {
    cleanUp(
      ['-n', 'demo-shop', 'delete', 'pod', POD, '--ignore-not-found', '--force', '--grace-period=0'],
    );
  },
});

test('a pod created with kubectl appears in the pods table, and goes when deleted', async () => {
  const { page, errors } = app;
  await page.goto(`${app.url}#/r/pods?ns=demo-shop`);
  await page.getByTestId('resource-row').first().waitFor({ timeout: 20000 });
  const headers = await page.getByTestId('column-header').allInnerTexts();
  assert.deepEqual(headers.slice(0, 3).map((h) => h.trim()), ['NAME', 'READY', 'STATUS'], `kubectl's columns: ${headers}`);
  const t = Date.now();
  kubectl('-n', 'demo-shop', 'run', POD, '--image=registry.example/e2e:1', '--restart=Never');
  const row = page.locator(`[data-testid="resource-row"][data-key="demo-shop/${POD}"]`);
  await row.waitFor({ timeout: 15000 });
  console.log(`  pod row shown ${Date.now() - t} ms after kubectl run returned`);
  kubectl('-n', 'demo-shop', 'delete', 'pod', POD, '--force', '--grace-period=0');
  // It fades out for a moment, then goes.
  await page.locator(`[data-testid="resource-row"][data-key="demo-shop/${POD}"].gone`).waitFor({ timeout: 15000 });
  await row.waitFor({ state: 'detached', timeout: 15000 });
  await page.screenshot({ path: `${ARTIFACTS}/pods-table.png` });
  assert.deepEqual(errors, []);
});

test('a table shows one page of rows at once while its informer is still listing', async (t) => {
  const { page } = app;
  // Hold the informer's LIST (resourceVersion=0, which the watch cache
  // answers in one piece whatever its limit) until the preview (a page with
  // a limit and no resourceVersion) has been checked; everything else
  // passes untouched.
  const held = [];
  let release;
  const released = new Promise((r) => { release = r; });
  const isFullList = (u) => u.pathname === `/${app.token}/api/v1/namespaces/demo-shop/pods`
    && u.searchParams.get('resourceVersion') === '0' && !u.searchParams.has('watch');
  await page.route(isFullList, async (route) => {
    held.push(route.request().url());
    await Promise.race([released, new Promise((r) => setTimeout(r, 30000))]);
    await route.continue();
  });
  t.after(async () => {
    release();
    await page.unroute(isFullList);
  });
  await page.goto(`${app.url}#/`);
  await frame(page).ready();
  await page.evaluate(() => { location.hash = '#/r/pods?ns=demo-shop'; });
  await page.getByTestId('resource-row').first().waitFor({ timeout: 15000 });
  assert.match(await page.getByTestId('row-count').innerText(), /^first \d+ of \d+ — loading the rest$/);
  assert.equal(await page.getByTestId('informer-state').innerText(), 'listing');
  assert.equal(held.length, 1, 'the informer\'s LIST is the one held');
  release();
  // kubectl's count is read again each try: other tests' pods may still be going.
  let seen = '';
  let pods = 0;
  assert.ok(await until(async () => {
    pods = JSON.parse(kubectl('-n', 'demo-shop', 'get', 'pods', '-o', 'json')).items.length;
    seen = `${await page.getByTestId('row-count').innerText()} (${await page.getByTestId('informer-state').innerText()})`;
    return seen.startsWith(`${pods} of ${pods} `);
  }, 20000), `the informer's rows replace the preview: the page says ${seen}, kubectl has ${pods} pods`);
  assert.equal(held.length, 1, 'the informer listed once');
  // An empty table: the informer syncs with nothing (and so notifies
  // nothing); the preview still goes.
  await page.evaluate(() => { location.hash = '#/r/jobs.batch?ns=demo-shop'; });
  assert.ok(await until(async () => (await page.getByTestId('row-count').innerText().catch(() => '')) === '0 of 0', 10000),
    'an empty table says 0 of 0');
});

test("the demo CRD's table shows its printer columns, sorts, filters and opens rows by keyboard", async () => {
  const { page } = app;
  await page.goto(`${app.url}#/r/databases.demo.kubeglass.dev`);
  await page.getByTestId('resource-row').first().waitFor({ timeout: 20000 });
  const headers = (await page.getByTestId('column-header').allInnerTexts()).map((h) => h.trim());
  for (const c of ['NAMESPACE', 'NAME', 'ENGINE', 'VERSION', 'SIZE', 'AGE']) {
    assert.ok(headers.some((h) => h.startsWith(c)), `${c} in ${headers}`);
  }
  assert.ok(!headers.some((h) => h.startsWith('REPLICAS')), 'priority-1 columns are for wide output');
  assert.ok(await until(async () => (await rowKeys(page)).length >= 12, 10000), 'the dozen demo databases');
  // Wide: kubectl -o wide's columns join, in the header and in every row; w turns it off.
  const cellsPerRow = () => page.getByTestId('resource-row').first().locator('[role=cell]').count();
  const narrowCells = await cellsPerRow();
  await page.getByTestId('wide-toggle').click();
  assert.ok(await until(async () => (await page.getByTestId('column-header').allInnerTexts()).some((h) => h.trim().startsWith('REPLICAS')), 5000), 'REPLICAS when wide');
  assert.equal(await page.getByTestId('wide-toggle').getAttribute('aria-pressed'), 'true');
  const cellCounts = () => page.getByTestId('resource-row').evaluateAll((rows) => rows.map((r) => r.querySelectorAll('[role=cell]').length));
  assert.ok(await until(async () => (await cellCounts()).every((n) => n === narrowCells + 1), 5000), `a cell more in every row: ${await cellCounts()}`);
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('w');
  assert.ok(await until(async () => !(await page.getByTestId('column-header').allInnerTexts()).some((h) => h.trim().startsWith('REPLICAS')), 5000), 'w: narrow again');
  assert.equal(await cellsPerRow(), narrowCells);

  // Sort by Size (ascending, then descending): the cells come in order.
  const sizeIndex = headers.findIndex((h) => h.startsWith('SIZE'));
  const sizes = async () => page.getByTestId('resource-row').evaluateAll(
    (rows, i) => [...rows].sort((a, b) => Number(a.getAttribute('aria-rowindex')) - Number(b.getAttribute('aria-rowindex')))
      .map((r) => Number(r.querySelectorAll('[role=cell]:not(.mark)')[i].innerText)), sizeIndex);
  await page.getByTestId('column-header').nth(sizeIndex).click();
  let s = await sizes();
  assert.deepEqual(s, [...s].sort((a, b) => a - b), `ascending: ${s}`);
  await page.getByTestId('column-header').nth(sizeIndex).click();
  s = await sizes();
  assert.deepEqual(s, [...s].sort((a, b) => b - a), `descending: ${s}`);

  // Filter: text, regex, and a broken regex says why.
  await page.keyboard.press('/');
  await page.keyboard.type('redis');
  assert.ok(await until(async () => {
    const texts = await page.getByTestId('resource-row').allInnerTexts();
    return texts.length > 0 && texts.every((t) => t.includes('redis'));
  }, 5000), 'only redis rows');
  await page.getByTestId('row-filter').fill('/^demo-[a-z]+\\/orders/');
  assert.ok(await until(async () => (await rowKeys(page)).every((k) => k.endsWith('/orders')), 5000));
  await page.getByTestId('row-filter').fill('/(/');
  await page.getByTestId('filter-error').waitFor({ timeout: 5000 });
  await page.keyboard.press('Escape');
  assert.equal(await page.getByTestId('row-filter').inputValue(), '');

  // j moves the selection, Enter opens the object page.
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('j');
  const second = (await rowKeys(page))[1];
  await page.keyboard.press('Enter');
  await page.getByTestId('object-title').waitFor({ timeout: 10000 });
  assert.ok((await page.getByTestId('object-title').innerText()).includes(second), `opened ${second}`);
});

test('table rows reach assistive technology in screen order, whichever DOM slot of the ring holds them', async (t) => {
  const { page } = app;
  const ns = `e2e-ring-${SUFFIX}`;
  kubectl('create', 'namespace', ns);
  t.after(async () => { kubectl('delete', 'namespace', ns, '--wait=false'); });
  apply({
    apiVersion: 'v1', kind: 'List',
    items: Array.from({ length: 120 }, (_, i) => ({
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${String(i).padStart(3, '0')}`, namespace: ns },
    })),
  });
  await page.goto(`${app.url}#/r/configmaps?ns=${ns}`);
  // 120 and the namespace's kube-root-ca.crt.
  assert.ok(await until(async () => (await page.getByTestId('row-count').innerText().catch(() => '')) === '121 of 121', 20000),
    `all rows: ${await page.getByTestId('row-count').innerText().catch(() => '?')}`);
  // Scroll 50 rows down: the ring wraps, so DOM order is no longer screen order.
  await page.getByTestId('table-body').evaluate((el) => { el.scrollTop = 50 * 30; });
  assert.ok(await until(async () => (await rowKeys(page))[0] === `${ns}/cm-040`, 5000), `window moved: ${(await rowKeys(page))[0]}`);
  const screen = (await rowKeys(page)).map((k) => k.split('/')[1]);
  const dom = await page.getByTestId('resource-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key').split('/')[1]));
  assert.notDeepEqual(dom, screen, 'the ring wrapped (DOM order differs from screen order)');
  // Chromium's own accessibility tree (what a screen reader is given).
  const read = (await accessibleRows(page, 'data-key')).map((k) => k?.split('/')[1]);
  assert.deepEqual(read, screen, 'rows in the accessibility tree follow the screen');
});

test('a deep link to a table lists the namespaces in the menu, and a namespace picked there is remembered', async () => {
  const { page } = app;
  // A fresh tab that starts on a table, not on the overview.
  await page.goto('about:blank');
  await page.goto(`${app.url}#/r/pods`);
  const choices = page.locator('[data-testid=namespace-choices] option');
  assert.ok(await until(async () => {
    const values = await choices.evaluateAll((os) => os.map((o) => o.value));
    return values.includes('demo-shop') && values.includes('kube-system');
  }, 20000), 'demo-shop and kube-system are choices');
  const input = page.getByTestId('namespace-input');
  await input.fill('demo-shop');
  await input.press('Enter');
  assert.ok(await until(async () => page.url().endsWith('#/r/pods?ns=demo-shop'), 10000), page.url());
  // The URL changes before the hashchange redraws the page: read the rows of
  // the table that replaced the all-namespaces one, not its last frame.
  const shown = page.locator('[data-testid=resource-page][data-namespace=demo-shop]');
  // The informer's rows, not only the first page shown before they come (a
  // preview says "first N of M — loading the rest"; the informer's, "N of N").
  await shown.getByTestId('row-count').filter({ hasText: /^[1-9]\d* of [1-9]\d*$/ }).waitFor({ timeout: 20000 });
  await shown.getByTestId('resource-row').first().waitFor({ timeout: 20000 });
  const keys = await table(shown).keys();
  assert.ok(keys.length > 0 && keys.every((k) => k.startsWith('demo-shop/')), `${keys}`);
  // Remembered: a new visit opens in it, and the overview follows it.
  await page.goto('about:blank');
  await page.goto(app.url);
  assert.equal(await page.getByTestId('namespace-input').inputValue(), 'demo-shop');
  await page.locator('[data-testid=deployment-row]').first().waitFor({ timeout: 20000 });
  const deployments = await page.locator('[data-testid=deployment-row]').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-key')));
  assert.ok(deployments.every((k) => k.startsWith('demo-shop/')), `${deployments}`);
  assert.match(await page.getByTestId('nav-pods').getAttribute('href'), /ns=demo-shop$/);
  // A name that cannot be a namespace says why and changes nothing.
  await page.getByTestId('namespace-input').fill('Not/A Namespace');
  await page.getByTestId('namespace-input').press('Enter');
  await page.getByTestId('namespace-error').waitFor({ timeout: 5000 });
  assert.match(await page.getByTestId('nav-pods').getAttribute('href'), /ns=demo-shop$/, 'still demo-shop');
  // Kept by kubectl glass, in the context's store (the browser keeps nothing).
  const stored = await (await fetch(`${app.api}/glass/storage`)).json();
  assert.equal(stored['kubeglass.namespace'], 'demo-shop');
  // Back to all namespaces.
  await page.getByTestId('namespace-input').fill('');
  await page.getByTestId('namespace-input').press('Enter');
  assert.ok(await until(async () => (await page.getByTestId('nav-pods').getAttribute('href')) === '#/r/pods', 5000));
});
