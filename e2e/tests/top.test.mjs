// Top against the real metrics-server (hack/cluster.sh runs it behind the
// aggregator) and kwok's simulated usage: pods and nodes ranked by CPU or
// memory, live (a new pod's figures arrive without a reload, and its line
// grows a point each poll); the polls on the X-ray page; and a cluster
// that stops serving metrics.k8s.io says so in one line while the rest of
// the app works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, cleanUp, apply, deployment, kubectl, until, ports } from '../lib.mjs';

const port = ports('top');
const PORT = port(0);
const SUFFIX = Date.now() % 1000000;
const BUSY = `e2e-top-busy-${SUFFIX}`;
const QUIET = `e2e-top-quiet-${SUFFIX}`;

/** A Deployment whose pods kwok says use `cpu` and `memory`. */
function using(name, cpu, memory, replicas = 1) {
  const d = deployment(name, 'registry.example/e2e/top:1');
  d.spec.replicas = replicas;
  d.spec.template.metadata.annotations = { 'kwok.x-k8s.io/usage-cpu': cpu, 'kwok.x-k8s.io/usage-memory': memory };
  d.spec.template.spec.containers[0].resources = { requests: { cpu: '500m', memory: '512Mi' }, limits: { cpu: '1', memory: '1Gi' } };
  return d;
}

const app = withApp(PORT, {
  async setup() {
    apply(using(BUSY, '900m', '700Mi', 2));
    apply(using(QUIET, '2m', '8Mi'));
  },
  teardown() {
    cleanUp(
      ['-n', 'demo-shop', 'delete', 'deployment', BUSY, QUIET, '--ignore-not-found', '--wait=false'],
    );
  },
});

/** The Top table's rows: key, CPU in millicores, memory in bytes, the line's points. */
const rows = (page, table) => page.getByTestId(table).getByTestId('top-row').evaluateAll((trs) => trs.map((tr) => ({
  key: tr.dataset.key, cpu: Number(tr.dataset.cpuMillis), memory: Number(tr.dataset.memoryBytes),
  line: tr.querySelector('polyline')?.getAttribute('points') ?? '',
})));

test('Top ranks pods and nodes by CPU or memory from metrics-server, live, each with its line', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/top`);
  await page.getByTestId('top-page').waitFor({ timeout: 20000 });
  // metrics-server has a pod from its second scrape that saw it (15 s apart).
  const busyRows = async () => (await rows(page, 'top-pods')).filter((r) => r.key.startsWith(`demo-shop/${BUSY}-`));
  assert.ok(await until(async () => (await busyRows()).length === 2, 120000, 500),
    `the busy pod's figures: ${JSON.stringify((await rows(page, 'top-pods')).slice(0, 3))}; state: ${await page.getByTestId('top-pods-state').innerText().catch(() => 'none')}`);
  const pods = await rows(page, 'top-pods');
  assert.equal(pods[0].key, (await busyRows())[0].key, 'the busiest pod first');
  assert.ok(Math.abs(pods[0].cpu - 900) < 20 && Math.abs(pods[0].memory - 700 * 2 ** 20) < 2 ** 20, JSON.stringify(pods[0]));
  for (let i = 1; i < pods.length; i++) assert.ok(pods[i - 1].cpu >= pods[i].cpu, `by CPU, largest first: ${pods[i - 1].key} ${pods[i].key}`);
  // kubectl top's words (kwok's usage wobbles by a millicore).
  assert.match(await page.getByTestId('top-pods').getByTestId('top-row').first().innerText(), /\b9\d\dm\s+70\dMi\b/);
  const bar = await page.getByTestId('top-pods').locator('.top-bar').first().evaluate((el) => el.style.width);
  assert.equal(bar, '100%', 'the first row has the full bar');
  // By memory: the same rows, largest memory first.
  await page.getByTestId('top-by-memory').click();
  const byMemory = await rows(page, 'top-pods');
  for (let i = 1; i < byMemory.length; i++) assert.ok(byMemory[i - 1].memory >= byMemory[i].memory, 'by memory, largest first');
  // The filter reads the one grammar: the quiet pod alone.
  await page.getByTestId('top-filter').fill(`/^demo-shop\\/${QUIET}-/`);
  assert.ok(await until(async () => {
    const r = await rows(page, 'top-pods');
    return r.length === 1 && r[0].key.startsWith(`demo-shop/${QUIET}-`) && r[0].cpu < 10;
  }, 60000, 500), `the quiet pod alone: ${JSON.stringify(await rows(page, 'top-pods'))}`);
  await page.getByTestId('top-filter').fill('');
  await page.getByTestId('top-by-cpu').click();
  // Nodes: every demo node, with its share of allocatable.
  const nodes = await rows(page, 'top-nodes');
  assert.ok(nodes.length >= 5, `${nodes.length} nodes`);
  assert.match(await page.getByTestId('top-nodes').getByTestId('top-row').first().innerText(), /\d+m\s+\d+%\s+\d+(\.\d)?[KMG]i\s+\d+%/);
  // Live: the next poll (15 s on) adds a point, and the busy pod's line has
  // two of them.
  assert.ok(await until(async () => (await busyRows())[0]?.line.split(' ').length >= 2, 30000, 500),
    `a line over its history: ${JSON.stringify(await busyRows())}`);
});

test('right-sizing says which workloads use more than they request and which ask for more than they use, and names the pods far from their requests', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/top`);
  const busy = page.getByTestId('sizing').locator(`[data-key="Deployment/demo-shop/${BUSY}"]`);
  const quiet = page.getByTestId('sizing').locator(`[data-key="Deployment/demo-shop/${QUIET}"]`);
  // The Top poll lingered: its history is there at once, or within a poll.
  assert.ok(await until(async () => (await busy.locator('td[data-fit]').first().getAttribute('data-fit').catch(() => null)) === 'under', 30000, 200),
    `the busy Deployment: ${await busy.innerText().catch(() => 'no row')}`);
  assert.match(await busy.innerText(), /1[78]\d\dm avg · 1[78]\d\dm peak of 1000m requested/);
  assert.match(await busy.innerText(), /raise the request/);
  assert.equal(await quiet.locator('td[data-fit]').first().getAttribute('data-fit'), 'over');
  assert.match(await quiet.innerText(), /could ask for less/);
  // Every pod of both is far from its own request, each named.
  const far = await busy.locator('td').last().innerText();
  assert.equal(far.split(', ').filter((f) => new RegExp(`^demo-shop/${BUSY}-\\S+ CPU 1[78]\\d%$`).test(f)).length, 2, far);
  assert.match(await quiet.locator('td').last().innerText(), new RegExp(`demo-shop/${QUIET}-\\S+ CPU 0%`));
});

test('a pod\'s page draws its CPU and memory over the tab\'s history against its requests and limits, a Deployment\'s its pods summed, and a node\'s against allocatable', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/top`);
  const busy = page.getByTestId('top-pods').getByTestId('top-row').filter({ hasText: BUSY }).first();
  await busy.waitFor({ timeout: 60000 });
  await busy.getByRole('link').click();
  const cpu = page.getByTestId('usage-cpu');
  await cpu.waitFor({ timeout: 20000 });
  // The header's namespace is all of them: the pod's page shares Top's poll,
  // history and all.
  assert.ok(await until(async () => ((await cpu.locator('polyline').getAttribute('points')) ?? '').split(' ').length >= 2, 20000, 200),
    'the line, from the shared history');
  assert.match(await page.getByTestId('usage-cpu-words').innerText(), /^9\d\dm · 1[89]\d% of request 500m · 9\d% of limit 1000m$/);
  assert.match(await page.getByTestId('usage-memory-words').innerText(), /^70\dMi · 13\d% of request 512Mi · 6\d% of limit 1Gi$/);
  assert.deepEqual(await cpu.locator('[data-mark]').evaluateAll((ls) => ls.map((l) => l.dataset.mark)), ['request', 'limit']);
  // The Deployment: its two pods summed (through its ReplicaSet), against
  // their requests and limits summed.
  await page.goto(`${app.url}#/o/deployments.apps/demo-shop/${BUSY}`);
  const words = page.getByTestId('usage-cpu-words');
  assert.ok(await until(async () => /^1[78]\d\dm · 1[789]\d% of request 1000m · 9\d% of limit 2000m$/.test(await words.innerText().catch(() => '')), 20000, 200),
    `the Deployment's CPU: ${await words.innerText().catch(() => 'none')}`);
  assert.match(await page.getByTestId('usage-cpu').locator('figcaption b').innerText(), /^CPU of its 2 pods, last \d+ min$/);
  // A node: its allocatable.
  const node = kubectl('-n', 'demo-shop', 'get', 'pods', '-l', `app=${BUSY}`, '-o', 'jsonpath={.items[0].spec.nodeName}');
  await page.goto(`${app.url}#/o/nodes/${node}`);
  await page.getByTestId('usage-memory').locator('[data-mark=allocatable]').waitFor({ state: 'attached', timeout: 20000 });
  assert.match(await page.getByTestId('usage-cpu-words').innerText(), /^\d+m · \d+% of allocatable \d+m$/);
});

test('X-ray shows the metrics polls, which go on for a minute after Top is left', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/xray`);
  const poll = page.getByTestId('xray-poll');
  await poll.first().waitFor({ timeout: 10000 });
  const text = (await poll.allInnerTexts()).join('\n');
  assert.match(text, /pods in all namespaces/);
  assert.match(text, /nodes/);
  assert.match(text, /fresh/);
  assert.doesNotMatch(text, /pods in demo-shop/, 'the pod page read the poll Top had, not one of its own');
});

test('a cluster that stops serving metrics.k8s.io gets one line saying so, and the other views work', async () => {
  const { page } = app;
  const saved = JSON.parse(kubectl('get', 'apiservice', 'v1beta1.metrics.k8s.io', '-o', 'json'));
  kubectl('delete', 'apiservice', 'v1beta1.metrics.k8s.io');
  try {
    await page.goto(`${app.url}#/`);
    await page.goto(`${app.url}#/top`);
    const state = page.getByTestId('top-pods-state');
    assert.ok(await until(async () => (await state.getAttribute('data-state').catch(() => null)) === 'not-served', 30000, 200),
      `the pods' state: ${await state.innerText().catch(() => 'none')}`);
    assert.match(await state.innerText(), /metrics-server/);
    assert.equal(await page.getByTestId('top-nodes-state').getAttribute('data-state'), 'not-served');
    // The rest of the app is unaffected.
    await page.goto(`${app.url}#/r/pods?ns=demo-shop`);
    await page.getByTestId('resource-row').first().waitFor({ timeout: 20000 });
    assert.deepEqual(app.errors.filter((e) => !/status of (404|503)/.test(e)), []);
  } finally {
    const { metadata: { name, labels }, spec } = saved;
    apply({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name, labels }, spec });
  }
});
