// The app's house: one decoder for Events on every page, one namespace for
// the whole app (listed, or typed by someone who may not list them), typed
// failures (forbidden is not unreachable, a failure to ask is not
// read-only), and pages that fit the screen at 1024 and 1360 px.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, cleanUp, startApp, apply, kubectl, startProxy, until, REJECT_PATHS, ARTIFACTS, ports } from '../lib.mjs';
import { table as tableOf } from '../pages.mjs';

const port = ports('house');
const PORT = port(0);
const SUFFIX = `${Date.now() % 1000000}`;
const CM = `e2e-house-${SUFFIX}`;
const LONG = `e2e-long-${SUFFIX}`;

const ago = (seconds) => new Date(Date.now() - seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
// events.k8s.io's MicroTime: six digits of fraction.
const micro = (seconds) => new Date(Date.now() - seconds * 1000).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

const app = withApp(PORT, {
  teardown() {
    cleanUp(
      ['-n', 'demo-shop', 'delete', 'configmap', CM, LONG, '--ignore-not-found'],
      ['-n', 'demo-shop', 'delete', 'events', '-l', `e2e-house=${SUFFIX}`, '--ignore-not-found'],
    );
  },
});

test("an object's events show the same count and age as the event stream, series and days included", async () => {
  const { page } = app;
  kubectl('-n', 'demo-shop', 'create', 'configmap', CM, '--from-literal=k=v');
  const involved = { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'demo-shop', name: CM };
  // A core/v1 Event last seen three days ago.
  apply({
    apiVersion: 'v1', kind: 'Event',
    metadata: { name: `${CM}.old`, namespace: 'demo-shop', labels: { 'e2e-house': SUFFIX } },
    involvedObject: involved, reason: 'E2EOld', message: 'three days ago', type: 'Warning', count: 7,
    firstTimestamp: ago(4 * 86400), lastTimestamp: ago(3 * 86400 + 60),
  });
  // An events.k8s.io/v1 Event with a series: 12 times, last ten minutes ago.
  apply({
    apiVersion: 'events.k8s.io/v1', kind: 'Event',
    metadata: { name: `${CM}.series`, namespace: 'demo-shop', labels: { 'e2e-house': SUFFIX } },
    regarding: involved, reason: 'E2ESeries', note: 'a series', type: 'Normal', action: 'Probe',
    reportingController: 'kubeglass.dev/e2e', reportingInstance: 'e2e',
    eventTime: micro(3600),
    series: { count: 12, lastObservedTime: micro(600) },
  });
  await page.goto(`${app.url}#/o/configmaps/demo-shop/${CM}`);
  const row = (reason) => page.getByTestId('object-event').filter({ hasText: reason });
  await row('E2ESeries').waitFor({ timeout: 20000 });
  await row('E2EOld').waitFor({ timeout: 20000 });
  assert.equal(await row('E2ESeries').getByTestId('object-event-count').innerText(), '12', 'series.count');
  assert.equal(await row('E2ESeries').getByTestId('object-event-age').innerText(), '10m', 'the last observation, not eventTime');
  assert.equal(await row('E2EOld').getByTestId('object-event-count').innerText(), '7');
  assert.equal(await row('E2EOld').getByTestId('object-event-age').innerText(), '3d', 'days, not 72h');
  // The stream says the same.
  await page.goto(`${app.url}#/events`);
  await page.getByTestId('event-object-filter').fill(CM);
  const streamRow = page.getByTestId('event-row').filter({ hasText: 'E2EOld' });
  await streamRow.waitFor({ timeout: 20000 });
  const cells = await streamRow.getByRole('cell').allInnerTexts();
  assert.deepEqual([cells[0], cells[1], cells[5]], ['3d', '4d', '7'], `last seen, first seen, count: ${cells}`);
  const series = await page.getByTestId('event-row').filter({ hasText: 'E2ESeries' }).getByRole('cell').allInnerTexts();
  assert.deepEqual([series[0], series[5]], ['10m', '12'], `${series}`);
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
  const table = page.locator('[data-testid=resource-page][data-namespace=demo-shop]');
  // The informer's rows, not only the first page shown before they come (a
  // preview says "first N of M — loading the rest"; the informer's, "N of N").
  await table.getByTestId('row-count').filter({ hasText: /^[1-9]\d* of [1-9]\d*$/ }).waitFor({ timeout: 20000 });
  await table.getByTestId('resource-row').first().waitFor({ timeout: 20000 });
  const keys = await tableOf(table).keys();
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

test('a failure to ask what one may do is said so, and is not "read-only"', async () => {
  const { page } = app;
  // This proxy refuses SelfSubjectAccessReviews, so the page cannot ask.
  const noReviews = await startProxy(port(1), undefined,
    { extra: [`--reject-paths=${REJECT_PATHS},^/apis/authorization\\.k8s\\.io/`] });
  try {
    await page.goto(`${noReviews.url}#/o/deployments.apps/demo-shop/frontend`);
    const err = page.getByTestId('access-error');
    await err.waitFor({ timeout: 20000 });
    assert.match(await err.innerText(), /Could not ask the cluster what you may do here/);
    assert.equal(await page.getByTestId('no-actions').count(), 0, 'not told it is read-only');
    await page.getByTestId('condition').first().waitFor({ timeout: 20000 });
  } finally {
    await noReviews.stop();
  }
});

test('a user who may read one namespace gets a working app: each panel says what it may not list, and the namespace it types works', async () => {
  const { page } = app;
  const restricted = await startApp(port(2), process.env.RESTRICTED_KUBECONFIG);
  try {
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
  } finally {
    await restricted.stop();
  }
});

test('object pages and the overview fit the screen at 1024 and 1360 px: nothing runs off the right edge', async () => {
  const { page } = app;
  // kubectl apply keeps a copy of the object in a long annotation.
  apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: LONG, namespace: 'demo-shop',
    labels: { app: 'e2e' }, annotations: { note: 'x'.repeat(400) } },
  data: { big: 'y'.repeat(2000), line: `${'a-very-long-unbroken-value-'.repeat(20)}` } });
  const pod = kubectl('-n', 'demo-shop', 'get', 'pods', '-o', 'jsonpath={.items[0].metadata.name}');
  const pages = [
    [`#/o/deployments.apps/demo-shop/frontend`, 'condition'],
    [`#/o/pods/demo-shop/${pod}`, 'condition'],
    [`#/o/configmaps/demo-shop/${LONG}`, 'annotations-chip'],
    ['#/', 'deployment-row'],
  ];
  const offenders = () => page.evaluate(() => {
    const w = document.documentElement.clientWidth;
    const bad = [];
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= w + 1) continue;
      // Inside a box that scrolls or clips it within the screen, it does not run off it.
      let p = el.parentElement;
      let held = false;
      while (p && p !== document.body) {
        if (/(auto|scroll|hidden|clip)/.test(getComputedStyle(p).overflowX) && p.getBoundingClientRect().right <= w + 1) {
          held = true;
          break;
        }
        p = p.parentElement;
      }
      if (!held) bad.push(`<${el.tagName.toLowerCase()} class="${el.className}" data-testid="${el.dataset.testid ?? ''}"> right ${Math.round(r.right)} > ${w}`);
    }
    return { bad: bad.slice(0, 8), scrollWidth: document.documentElement.scrollWidth, width: w };
  });
  for (const width of [1024, 1360]) {
    await page.setViewportSize({ width, height: 900 });
    for (const [hash, ready] of pages) {
      await page.goto(`${app.url}${hash}`);
      await page.getByTestId(ready).first().waitFor({ timeout: 20000 });
      if (hash.startsWith('#/o/')) await page.getByTestId('yaml').filter({ hasText: 'metadata:' }).waitFor({ timeout: 20000 });
      const { bad, scrollWidth, width: w } = await offenders();
      assert.deepEqual(bad, [], `${hash} at ${width}px`);
      assert.ok(scrollWidth <= w, `${hash} at ${width}px: the page scrolls sideways (${scrollWidth} > ${w})`);
    }
    await page.screenshot({ path: `${ARTIFACTS}/object-${width}.png` });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
});

test('the first page is drawn from the main wasm alone; the other parts follow in the background, and one that fails to load says so and loads on Retry', async () => {
  const { page } = app;
  const wasms = [];
  const seen = (r) => { if (new URL(r.url()).pathname.endsWith('.wasm')) wasms.push(new URL(r.url()).pathname.split('/').pop()); };
  const parts = () => wasms.filter((w) => /^(split|chunk)_/.test(w));
  // Top's part cannot be fetched, as when the server stopped or the app was
  // rebuilt under the open tab.
  const topPart = /\/split_top-[0-9a-f]{16}\.wasm$/;
  await page.route(topPart, (r) => r.abort());
  // When the version first shows, in the page's own clock.
  await page.addInitScript(() => {
    new MutationObserver((_, observer) => {
      if (document.querySelector('[data-testid="server-version"]')?.textContent?.trim()) {
        window.versionDrawnAt = performance.now();
        observer.disconnect();
      }
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  page.on('request', seen);
  try {
    // A fresh document: the overview.
    await page.goto('about:blank');
    await page.goto(`${app.url}#/`);
    await page.getByTestId('server-version').waitFor({ timeout: 20000 });
    assert.equal(wasms.filter((w) => /^kubeglass-[0-9a-f]{16}_bg\.wasm$/.test(w)).length, 1, `the main module: ${wasms}`);
    // Every other part comes in the background, none before the version
    // was on screen: here X-ray's and the resource tables', unasked.
    for (const name of ['xray', 'resource']) {
      assert.ok(await until(async () => wasms.some((w) => w.startsWith(`split_${name}-`)), 30000, 100), `${name}'s part in the background: ${parts()}`);
    }
    const { drawnAt, starts } = await page.evaluate(() => ({
      drawnAt: window.versionDrawnAt,
      starts: performance.getEntriesByType('resource')
        .filter((r) => /\/(split|chunk)_[^/]*\.wasm$/.test(r.name))
        .map((r) => [r.name.split('/').pop(), r.startTime]),
    }));
    assert.ok(drawnAt > 0, 'the version was seen drawn');
    const early = starts.filter(([, t]) => t < drawnAt);
    assert.deepEqual(early, [], `parts asked for before the version was drawn at ${drawnAt} ms`);
    // Top: its part failed in the background; the page says so in one line,
    // with a Retry, and the rest of the app goes on.
    const errorsBefore = app.errors.length;
    await page.evaluate(() => { location.hash = '#/top'; });
    const failed = page.getByTestId('part-error');
    await failed.waitFor({ timeout: 20000 });
    assert.match(await failed.innerText(), /This page's code did not load \(.+\)\..*retry, or reload the tab/);
    assert.ok(wasms.some((w) => /^split_top-/.test(w)), `Top's part was asked for: ${parts()}`);
    assert.equal(await page.getByTestId('nav-overview').count(), 1, 'the top bar is still there');
    // The loader logged the failed fetch; nothing else went wrong.
    assert.ok(app.errors.slice(errorsBefore).every((e) => /Failed to fetch|ERR_FAILED|TypeError/.test(e)), app.errors.slice(errorsBefore).join('\n'));
    app.errors.splice(errorsBefore);
    // The server is back: Retry draws Top.
    await page.unroute(topPart);
    await page.getByTestId('part-retry').click();
    await page.getByTestId('top-page').waitFor({ timeout: 20000 });
    assert.equal(await failed.count(), 0);
    // X-ray's part came in the background: its page is drawn without a wait.
    await page.getByTestId('nav-xray').click();
    await page.getByTestId('xray-page').waitFor({ timeout: 20000 });
    assert.equal(await page.getByTestId('part-loading').count(), 0);
  } finally {
    page.off('request', seen);
    await page.unroute(topPart).catch(() => {});
  }
});

test('the session file and the server version, which the first page waits for, are each asked for once, by the page\'s preloads, and the app takes those answers', async () => {
  const { page } = app;
  const asked = [];
  const seen = (r) => asked.push({ path: new URL(r.url()).pathname + new URL(r.url()).search, type: r.resourceType() });
  page.on('request', seen);
  try {
    await page.goto('about:blank');
    await page.goto(`${app.url}#/`);
    await page.getByTestId('server-version').waitFor({ timeout: 20000 });
    // The app has started and read both: the overview counts pods.
    await page.waitForFunction(() => /^\d+$/.test(document.querySelector('[data-testid="pod-count"]')?.textContent ?? ''), null, { timeout: 20000 });
    const of = (re) => asked.filter((r) => re.test(r.path));
    const session = of(/\/kubeglass-context\.json(\?|$)/);
    const version = of(/\/version(\?|$)/);
    // One request each: the preload's. Had the app's own fetch not matched
    // it, the app would have asked again.
    assert.equal(session.length, 1, `the session file: ${JSON.stringify(session)}`);
    assert.equal(version.length, 1, `the version: ${JSON.stringify(version)}`);
    // And that one was the page's <link rel=preload>, not the app's fetch.
    const initiators = await page.evaluate(() => performance.getEntriesByType('resource')
      .filter((r) => /\/(kubeglass-context\.json|version)$/.test(new URL(r.name).pathname))
      .map((r) => `${new URL(r.name).pathname.split('/').pop()} ${r.initiatorType}`).sort());
    assert.deepEqual(initiators, ['kubeglass-context.json link', 'version link']);
    // And the app drew what they answered: the version is the server's.
    const server = JSON.parse(kubectl('version', '-o', 'json')).serverVersion.gitVersion;
    assert.equal((await page.getByTestId('server-version').innerText()).trim(), server);
  } finally {
    page.off('request', seen);
  }
});

test('on a deep link, the other pages\' parts wait until the page in front has its first lists in', async () => {
  const { page } = app;
  await page.goto('about:blank');
  await page.goto(`${app.url}#/events`);
  await page.getByTestId('event-row').first().waitFor({ timeout: 20000 });
  // Another page's part comes in the background, unasked.
  await page.waitForFunction(() => performance.getEntriesByType('resource').some((r) => /\/split_xray-[0-9a-f]{16}\.wasm$/.test(r.name)), null, { timeout: 30000 });
  const { lists, others } = await page.evaluate(() => {
    const all = performance.getEntriesByType('resource');
    return {
      // The event stream's LIST (every page of it), not its watch.
      lists: all.filter((r) => /\/v1\/events\?/.test(r.name) && !/[?&]watch=/.test(r.name)).map((r) => r.responseEnd),
      others: all.filter((r) => /\/split_(?!events-)\w+-[0-9a-f]{16}\.wasm$/.test(r.name)).map((r) => [r.name.split('/').pop(), r.startTime]),
    };
  });
  assert.ok(lists.length > 0, 'the event stream listed');
  assert.ok(others.length > 0, 'other parts came');
  const listed = Math.max(...lists);
  const early = others.filter(([, t]) => t < listed);
  assert.deepEqual(early, [], `parts asked for before the events' list was in at ${listed.toFixed(0)} ms`);
});
