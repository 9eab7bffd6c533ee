// The event stream: a Warning from a real controller, filtering, pausing,
// only the rows in view in the DOM, and one decoder for Events on every page
// (an object's events show the stream's count and age).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { withApp, apply, kubectl, until, cleanUp } from '../lib.mjs';

const SUFFIX = `${Date.now() % 1000000}`;
const CM = `e2e-house-${SUFFIX}`;
const ago = (seconds) => new Date(Date.now() - seconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
// events.k8s.io's MicroTime: six digits of fraction.
const micro = (seconds) => new Date(Date.now() - seconds * 1000).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

const app = withApp({
  teardown() {
    cleanUp(
      ['-n', 'demo-shop', 'delete', 'configmap', CM, '--ignore-not-found'],
      ['-n', 'demo-shop', 'delete', 'events', '-l', `e2e-house=${SUFFIX}`, '--ignore-not-found'],
    );
  },
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

test('the event stream keeps only the rows in view in the DOM and scrolls to the oldest', async (t) => {
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
  t.after(async () => {
    // One deletecollection (kubectl would delete them one by one, throttled).
    kubectl('delete', '--raw', `/api/v1/namespaces/demo-shop/events?fieldSelector=reason%3D${reason}`);
  });
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
    // Ages well inside their unit: the app's clock ticks once a second, so
    // an age made exactly on a boundary (600 s, 4 days) can read one less.
    firstTimestamp: ago(4 * 86400 + 600), lastTimestamp: ago(3 * 86400 + 600),
  });
  // An events.k8s.io/v1 Event with a series: 12 times, last ten and a half minutes ago.
  apply({
    apiVersion: 'events.k8s.io/v1', kind: 'Event',
    metadata: { name: `${CM}.series`, namespace: 'demo-shop', labels: { 'e2e-house': SUFFIX } },
    regarding: involved, reason: 'E2ESeries', note: 'a series', type: 'Normal', action: 'Probe',
    reportingController: 'kubeglass.dev/e2e', reportingInstance: 'e2e',
    eventTime: micro(3600),
    series: { count: 12, lastObservedTime: micro(630) },
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
