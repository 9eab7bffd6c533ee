// The dashboard's views in real Chromium against the real cluster: live
// resource tables (built-in and CRD), sorting, filtering and keys, the API
// tree following a CRD created during the test, the event stream, object
// pages with their actions (RBAC-checked), the X-ray page, the command
// palette and history.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { withApp, cleanUp, startApp, apply, deployment, kubectl, until, ARTIFACTS, ports } from '../lib.mjs';
import { table } from '../pages.mjs';

const port = ports('views');
const PORT = port(0);
const RESTRICTED_PORT = port(1);
const SUFFIX = `${Date.now() % 1000000}`;
const POD = `e2e-pod-${SUFFIX}`;
const CM = `e2e-xss-${SUFFIX}`;
const TWO = `e2e-two-revisions-${SUFFIX}`;
const CRD_GROUP = 'e2e.kubeglass.dev';
const CRD = `probes${SUFFIX}.${CRD_GROUP}`;
const EVIL = '<img src=x onerror=alert(1)><script>alert(2)</script>';

const app = withApp(PORT, {
  teardown() {
    cleanUp(
      ['-n', 'demo-shop', 'delete', 'pod', POD, '--ignore-not-found', '--force', '--grace-period=0'],
      ['-n', 'demo-shop', 'delete', 'configmap', CM, '--ignore-not-found'],
      ['delete', 'crd', CRD, '--ignore-not-found'],
    );
  },
});

const rowKeys = (page) => table(page).keys();

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

test('a table shows one page of rows at once while its informer is still listing', async () => {
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
  try {
    await page.goto(`${app.url}#/`);
    await page.getByTestId('server-version').waitFor({ timeout: 20000 });
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
  } finally {
    release();
    await page.unroute(isFullList);
  }
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

test('table rows reach assistive technology in screen order, whichever DOM slot of the ring holds them', async () => {
  const { page } = app;
  const ns = `e2e-ring-${SUFFIX}`;
  kubectl('create', 'namespace', ns);
  try {
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
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Accessibility.enable');
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const byId = new Map(nodes.map((n) => [n.nodeId, n]));
    const group = nodes.find((n) => n.role?.value === 'rowgroup');
    assert.ok(group, 'a rowgroup in the accessibility tree');
    const rows = [];
    const walk = (n) => {
      if (n.role?.value === 'row') { rows.push(n.backendDOMNodeId); return; }
      for (const c of n.childIds ?? []) { if (byId.has(c)) walk(byId.get(c)); }
    };
    walk(group);
    // Each row's element, named by its data-key.
    const read = [];
    for (const backendNodeId of rows) {
      const { node } = await cdp.send('DOM.describeNode', { backendNodeId });
      const attrs = node.attributes ?? [];
      read.push(attrs[attrs.indexOf('data-key') + 1]?.split('/')[1]);
    }
    await cdp.detach();
    assert.deepEqual(read, screen, 'rows in the accessibility tree follow the screen');
  } finally {
    kubectl('delete', 'namespace', ns, '--wait=false');
  }
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

test('the event stream page shows a Warning from a real controller, filters, pauses and resumes', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/events`);
  const warning = page.locator('[data-testid="event-row"].event-warning');
  // Only the rows in view are in the DOM, and the newest may all be Normal:
  // the type filter brings the Warnings up.
  await page.getByTestId('event-row').first().waitFor({ timeout: 20000 });
  await page.getByTestId('event-type-filter').selectOption('Warning');
  await warning.first().waitFor({ timeout: 20000 });
  assert.match(await warning.first().innerText(), /FailedScheduling|BackOff|Failed/);
  assert.ok(await until(async () => {
    const all = await page.getByTestId('event-row').count();
    return all > 0 && all === await warning.count();
  }, 5000), 'only Warnings');
  await page.getByTestId('event-type-filter').selectOption('');
  assert.ok(await until(async () => (await page.getByTestId('event-row').count()) > (await warning.count()), 5000),
    'Normal events again without the filter');
  // Paused: a new event is not shown until resumed.
  const reason = `Probe${SUFFIX}`;
  await page.getByTestId('event-filter').fill(reason);
  await page.getByTestId('event-pause').click();
  const manifest = {
    apiVersion: 'v1', kind: 'Event', metadata: { name: `e2e-${SUFFIX}`, namespace: 'demo-shop' },
    involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'demo-shop', name: 'feature-flags' },
    reason, message: 'paused stream test', type: 'Normal',
    firstTimestamp: new Date().toISOString(), lastTimestamp: new Date().toISOString(), count: 1,
  };
  const pausedNew = page.getByTestId('event-paused-new');
  await pausedNew.filter({ hasText: 'nothing new yet' }).waitFor({ timeout: 5000 });
  execFileSync(process.env.KUBECTL, ['--kubeconfig', process.env.KUBECONFIG, 'create', '-f', '-'], { input: JSON.stringify(manifest) });
  // The event reached the page (it counts the events that pass the filter
  // and arrived while paused) and is not shown until resumed.
  await pausedNew.filter({ hasText: 'paused: 1 event arrived' }).waitFor({ timeout: 15000 }).catch(async (e) => {
    // What the stream held and said, to tell a stalled watch from a miscount.
    const said = await page.getByTestId('events-per-minute').innerText().catch(() => '?');
    const problem = await page.getByTestId('events-problem').innerText({ timeout: 500 }).catch(() => 'none');
    throw new Error(`${e.message}\n  paused line: ${await pausedNew.innerText().catch(() => '?')}; stream: ${said}; problem: ${problem}`);
  });
  assert.equal(await page.getByTestId('event-row').count(), 0, 'not shown while paused');
  await page.getByTestId('event-pause').click();
  await page.getByTestId('event-row').filter({ hasText: reason }).waitFor({ timeout: 10000 });
  await page.getByTestId('event-filter').fill('');
  // Menus by reason, namespace and kind, and the involved object's name.
  await page.getByTestId('event-kind-filter').selectOption('ConfigMap');
  await page.getByTestId('event-namespace-filter').selectOption('demo-shop');
  await page.getByTestId('event-object-filter').fill('FEATURE-flags');
  assert.ok(await until(async () => {
    const texts = await page.getByTestId('event-row').allInnerTexts();
    return texts.length > 0 && texts.every((t) => t.includes('demo-shop/configmap/feature-flags'))
      && texts.some((t) => t.includes(reason));
  }, 5000), 'kind, namespace and object filters');
  await page.getByTestId('event-reason-filter').selectOption(reason);
  assert.ok(await until(async () => (await page.getByTestId('event-row').count()) === 1, 5000), 'one reason');
  // The involved object links to its page.
  await page.getByTestId('event-object-link').first().click();
  await page.getByTestId('object-title').filter({ hasText: 'ConfigMap demo-shop/feature-flags' }).waitFor({ timeout: 10000 });
  assert.match(page.url(), /#\/o\/configmaps\/demo-shop\/feature-flags$/);
  await page.goBack();
  await page.getByTestId('event-stream').waitFor({ timeout: 10000 });
  // The remounted stream says it is loading until its first frame, then
  // how many it holds; never "no events" for a stream that has some.
  const perMinute = page.getByTestId('events-per-minute');
  let said = [];
  assert.ok(await until(async () => {
    const t = await perMinute.innerText();
    said.push(t);
    return /^[1-9]\d* events · \d+\/min now · peak \d+\/min$/.test(t);
  }, 10000), `the heading counts the events: ${said.slice(-3).join(' | ')}`);
  assert.ok(said.every((t) => !t.startsWith('no events')), `never "no events" on the way: ${said.join(' | ')}`);
  // A deleted event leaves the stream, and its reason (no other event has
  // it) leaves the reason menu.
  const reasonOption = page.locator(`[data-testid="event-reason-filter"] option[value="${reason}"]`);
  await reasonOption.waitFor({ state: 'attached', timeout: 10000 });
  await page.getByTestId('event-filter').fill(reason);
  assert.ok(await until(async () => (await page.getByTestId('event-row').count()) === 1, 5000), 'the one event, shown');
  kubectl('-n', 'demo-shop', 'delete', 'event', `e2e-${SUFFIX}`);
  assert.ok(await until(async () => (await reasonOption.count()) === 0
    && (await page.getByTestId('event-row').filter({ hasText: reason }).count()) === 0, 10000),
  'the deleted event and its reason are gone');
  await page.getByTestId('event-filter').fill('');
});

test('the event stream keeps only the rows in view in the DOM and scrolls to the oldest', async () => {
  const { page } = app;
  const reason = `Many${SUFFIX}`;
  const now = Date.now();
  execFileSync(process.env.KUBECTL, ['--kubeconfig', process.env.KUBECONFIG, 'create', '-f', '-'], {
    input: JSON.stringify({
      apiVersion: 'v1', kind: 'List',
      items: Array.from({ length: 150 }, (_, i) => {
        const at = new Date(now - i * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
        return {
          apiVersion: 'v1', kind: 'Event', metadata: { name: `e2e-many-${SUFFIX}-${i}`, namespace: 'demo-shop' },
          involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'demo-shop', name: 'feature-flags' },
          reason, message: `many ${i}`, type: 'Normal', firstTimestamp: at, lastTimestamp: at, count: 1,
        };
      }),
    }),
  });
  try {
    // A fresh stream (same-URL navigation would keep the last test's page).
    await page.goto(`${app.url}#/`);
    await page.goto(`${app.url}#/events`);
    await page.getByTestId('event-filter').waitFor({ timeout: 10000 });
    assert.equal(await page.getByTestId('event-filter').inputValue(), '');
    const held = async () => Number(/^(\d+) events/.exec(await page.getByTestId('events-per-minute').innerText().catch(() => ''))?.[1] ?? 0);
    assert.ok(await until(async () => (await held()) >= 150, 20000), `all events held: ${await held()}`);
    const domRows = await page.getByTestId('event-row').count();
    assert.ok(domRows > 0 && domRows < 60, `${domRows} DOM rows for ${await held()} events`);
    // Filtered to these 150: the list is as long as all of them, newest first,
    // and scrolling to the end brings the oldest into the DOM.
    // (The heading's count holds every event in the cluster, so it can pass
    // 150 before all of these are in: wait for these.)
    await page.getByTestId('event-filter').fill(reason);
    if (!await until(async () => (await page.getByTestId('event-table').getAttribute('aria-rowcount')) === '151', 20000)) {
      const inCluster = kubectl('-n', 'demo-shop', 'get', 'events', '--field-selector', `reason=${reason}`, '-o', 'name').split('\n').filter(Boolean).length;
      assert.fail(`aria-rowcount ${await page.getByTestId('event-table').getAttribute('aria-rowcount')}, `
        + `${inCluster} of these events in the cluster; heading "${await page.getByTestId('events-per-minute').innerText()}"; `
        + `page errors: ${app.errors.join(' | ') || 'none'}`);
    }
    assert.match(await page.getByTestId('event-row').first().innerText(), /many 0\b/);
    // Ages tick between events.
    const lastSeen = () => page.getByTestId('event-row').first().locator('[role=cell]').first().innerText();
    const age = await lastSeen();
    assert.ok(await until(async () => (await lastSeen()) !== age, 4000), `the age ticks past ${age}`);
    await page.getByTestId('event-body').evaluate((el) => { el.scrollTop = el.scrollHeight; });
    const oldest = page.getByTestId('event-row').filter({ hasText: /many 149\b/ });
    await oldest.waitFor({ timeout: 5000 });
    assert.equal(await oldest.getAttribute('aria-rowindex'), '151');
    assert.ok((await page.getByTestId('event-row').count()) < 60, 'still only the rows in view');
    // A narrower filter, scrolled far down: the list starts again at its newest match.
    await page.getByTestId('event-filter').fill('many 1');
    assert.ok(await until(async () => /many 1\b/.test(await page.getByTestId('event-row').first().innerText().catch(() => '')), 5000),
      `the newest match first: ${await page.getByTestId('event-row').first().innerText().catch(() => '?')}`);
    assert.equal(await page.getByTestId('event-row').first().getAttribute('aria-rowindex'), '2');
  } finally {
    // One deletecollection (kubectl would delete them one by one, throttled).
    kubectl('delete', '--raw', `/api/v1/namespaces/demo-shop/events?fieldSelector=reason%3D${reason}`);
  }
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

test('the restricted user sees a clear forbidden message and no actions it may not use', async () => {
  const restricted = await startApp(RESTRICTED_PORT, process.env.RESTRICTED_KUBECONFIG);
  try {
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
  } finally {
    await restricted.stop();
    cleanUp(['-n', 'demo-shop', 'delete', 'deployment', TWO, '--ignore-not-found', '--wait=false']);
  }
});

test('X-ray shows the informers at work and the connections by kind', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/`);
  await page.getByTestId('event-row').first().waitFor({ timeout: 20000 });
  await page.getByTestId('nav-xray').click();
  // The overview's event informer (whole objects over WebSocket) is kept warm
  // for a minute after the overview is left.
  const events = page.getByTestId('xray-informer').filter({ hasText: '/api/v1/events' });
  await events.waitFor({ timeout: 10000 });
  assert.match(await events.innerText(), /watching/);
  assert.ok(Number(await page.getByTestId('xray-websockets').innerText()) >= 1, 'watches over WebSocket');
  // The action queue (work queue metrics under client-go's names) is listed.
  assert.match(await page.getByTestId('xray-queues').innerText(), /user-actions/);
  // Each view's frame queue too, kept (and said so) after its view closed.
  assert.ok(await until(async () => /event-rows\s+frames · view closed/.test(await page.getByTestId('xray-queues').innerText()), 5000),
    'the overview\'s event-rows frame queue, closed');
  assert.ok(Number(await page.getByTestId('xray-streams').innerText()) <= 4, 'at most 4 long-lived fetch streams');
  await page.screenshot({ path: `${ARTIFACTS}/xray.png` });
});

test('the command palette jumps by short name, and back and forward work', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/`);
  await page.getByTestId('server-version').waitFor({ timeout: 20000 });
  const palette = async (line) => {
    await page.getByTestId('palette').waitFor({ state: 'detached', timeout: 10000 });
    await page.keyboard.press(':');
    await page.getByTestId('palette-input').waitFor({ timeout: 5000 });
    await page.getByTestId('palette-input').fill(line);
    await page.getByTestId('palette-input').press('Enter');
  };
  await palette('db');
  assert.ok(await until(async () => page.url().includes('#/r/databases.demo.kubeglass.dev'), 10000));
  assert.match(page.url(), /#\/r\/databases\.demo\.kubeglass\.dev/);
  await page.getByTestId('resource-kind').filter({ hasText: 'Database' }).waitFor({ timeout: 10000 });
  await palette('deploy kube-system');
  assert.ok(await until(async () => page.url().includes('#/r/deployments.apps?ns=kube-system'), 10000));
  assert.match(page.url(), /ns=kube-system/);
  await palette('nosuchthing');
  await page.getByTestId('palette-error').waitFor({ timeout: 10000 });
  await page.getByTestId('palette-input').press('Escape');
  await page.goBack();
  assert.ok(await until(async () => page.url().includes('#/r/databases'), 5000));
  assert.match(page.url(), /#\/r\/databases/);
  await page.getByTestId('resource-kind').filter({ hasText: 'Database' }).waitFor({ timeout: 10000 });
  await page.goForward();
  assert.ok(await until(async () => page.url().includes('ns=kube-system'), 5000));
  assert.match(page.url(), /ns=kube-system/);
});
