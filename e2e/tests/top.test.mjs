// Top against the real metrics-server (hack/cluster.sh runs it behind the
// aggregator) and kwok's simulated usage: pods and nodes ranked by CPU or
// memory, live (a new pod's figures arrive without a reload, and its line
// grows a point each poll); the node rows against kubectl top node, word
// for word, where both read the same sample; the pod and node tables' CPU
// and memory columns against kubectl top; the polls on the X-ray page; and a cluster
// whose metrics-server stops answering says so in one line while the rest of
// the app works; and the graphs' points kept across a reload.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, cleanUp, apply, deployment, kubectl, until, startApp } from '../lib.mjs';
import { table, top, usage, xray } from '../pages.mjs';

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

const app = withApp({
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

/** Whether a figure is within `share` of `want` (4% unless told). */
const near = (got, want, share = 0.04) => Math.abs(Number(got) - want) <= want * share;

/** Whether `text` matches `re` and each captured number is near its `want`. */
const shares = (text, re, wants) => {
  const m = re.exec(text);
  return !!m && wants.every((w, i) => near(m[i + 1], w));
};

test('Top ranks pods and nodes by CPU or memory from metrics-server, live, each with its line', async () => {
  const { page } = app;
  const tp = top(page);
  await page.goto(`${app.url}#/top`);
  await tp.loaded();
  // metrics-server has a pod from its second scrape that saw it (15 s apart).
  const busyRows = async () => (await tp.figures('pods')).filter((r) => r.key.startsWith(`demo-shop/${BUSY}-`));
  assert.ok(await until(async () => (await busyRows()).length === 2, 120000, 500),
    `the busy pod's figures: ${JSON.stringify((await tp.figures('pods')).slice(0, 3))}; state: ${await tp.state('pods').innerText().catch(() => 'none')}`);
  const pods = await tp.figures('pods');
  assert.equal(pods[0].key, (await busyRows())[0].key, 'the busiest pod first');
  assert.ok(Math.abs(pods[0].cpu - 900) < 20 && Math.abs(pods[0].memory - 700 * 2 ** 20) < 2 ** 20, JSON.stringify(pods[0]));
  for (let i = 1; i < pods.length; i++) assert.ok(pods[i - 1].cpu >= pods[i].cpu, `by CPU, largest first: ${pods[i - 1].key} ${pods[i].key}`);
  // kubectl top's words. kwok's usage wobbles by a few millicores (896m
  // and 898m have been seen for 900m), so the figures are read as numbers.
  const words = (await tp.rows('pods').first().innerText()).match(/\b(\d+)m\s+(\d+)Mi\b/);
  assert.ok(words && near(words[1], 900) && near(words[2], 700, 0.015), `kubectl top's words: ${words?.[0]}`);
  const bar = await tp.section('pods').locator('.top-bar').first().evaluate((el) => el.style.width);
  assert.equal(bar, '100%', 'the first row has the full bar');
  // By memory: the same rows, largest memory first.
  await tp.byMemory();
  const byMemory = await tp.figures('pods');
  for (let i = 1; i < byMemory.length; i++) assert.ok(byMemory[i - 1].memory >= byMemory[i].memory, 'by memory, largest first');
  // The filter reads the one grammar: the quiet pod alone.
  await tp.filter(`/^demo-shop\\/${QUIET}-/`);
  assert.ok(await until(async () => {
    const r = await tp.figures('pods');
    return r.length === 1 && r[0].key.startsWith(`demo-shop/${QUIET}-`) && r[0].cpu < 10;
  }, 60000, 500), `the quiet pod alone: ${JSON.stringify(await tp.figures('pods'))}`);
  await tp.filter('');
  await tp.byCpu();
  // Nodes: every demo node, with its share of allocatable.
  const nodes = await tp.figures('nodes');
  assert.ok(nodes.length >= 5, `${nodes.length} nodes`);
  // kubectl top node's words: whole millicores, a whole percent, whole Mi.
  assert.match(await tp.rows('nodes').first().innerText(), /\d+m\s+\d+%\s+\d+Mi\s+\d+%/);
  // Live: the next poll (15 s on) adds a point, and the busy pod's line has
  // two of them.
  assert.ok(await until(async () => (await busyRows())[0]?.line.split(' ').length >= 2, 30000, 500),
    `a line over its history: ${JSON.stringify(await busyRows())}`);
});

/** metrics-server's sample time of each node, as the API serves it now. */
const nodeStamps = (version) => Object.fromEntries(
  JSON.parse(kubectl('get', '--raw', `/apis/metrics.k8s.io/${version}/nodes`)).items.map((i) => [i.metadata.name, i.timestamp]));

test('Top\'s node rows say what kubectl top node says, word for word, where both read the same sample', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/top`);
  const tp = top(page);
  const nodes = tp.section('nodes');
  await tp.rows('nodes').first().waitFor({ timeout: 60000 });
  // The version kubectl reads (the first of v1, v1beta1 the group lists).
  const version = await nodes.getAttribute('data-version');
  const listed = JSON.parse(kubectl('get', '--raw', '/apis/metrics.k8s.io')).versions.map((v) => v.version);
  assert.equal(version, listed.find((v) => ['v1', 'v1beta1'].includes(v)), `listed: ${listed}`);
  const appRows = () => tp.rows('nodes').evaluateAll((trs) => trs.map((tr) => ({
    words: [...tr.querySelectorAll('td')].slice(0, 5).map((td) => td.innerText.trim()),
    stamp: tr.dataset.timestamp ?? '',
  })));
  // metrics-server takes a new sample every 15 s and the page polls on its
  // own 15 s, so a node's line is compared only when kubectl's line and the
  // page's row come from one sample: the API served the same timestamp
  // before and after kubectl ran, and the page's row carries it. Every
  // comparison made is exact; the wait is for each node to get one.
  const compared = new Set();
  let last = '';
  await until(async () => {
    const before = nodeStamps(version);
    const top = kubectl('top', 'node', '--no-headers').trim().split('\n').map((l) => l.trim().split(/\s+/));
    const after = nodeStamps(version);
    const rows = Object.fromEntries((await appRows()).map((r) => [r.words[0], r]));
    // The shares need the nodes' allocatable, which the page's informer of
    // the nodes brings (it also lists the nodes without figures).
    if (Object.values(rows).some((r) => r.words[2] === '')) return false;
    // Every node kubectl lists (those without figures as <unknown>) is a row.
    assert.deepEqual(Object.keys(rows).sort(), top.map((l) => l[0]).sort(), 'the same nodes');
    for (const line of top) {
      const [name] = line;
      const row = rows[name];
      const same = line[1] === '<unknown>'
        ? !(name in before) && !(name in after) && row.stamp === ''
        : before[name] !== undefined && before[name] === after[name] && row.stamp === before[name];
      if (!same) continue;
      assert.deepEqual(row.words, line, `${name}: the page and kubectl top node, one sample (${before[name] ?? 'none'})`);
      compared.add(name);
    }
    last = `compared ${[...compared]} of ${top.map((l) => l[0])}`;
    return compared.size === top.length;
  }, 120000, 1000);
  assert.ok(compared.size >= 5, last);
});

test('right-sizing says which workloads use more than they request and which ask for more than they use, and names the pods far from their requests', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/top`);
  const busy = top(page).sizing(`Deployment/demo-shop/${BUSY}`);
  const quiet = top(page).sizing(`Deployment/demo-shop/${QUIET}`);
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
  const busy = top(page).rows('pods').filter({ hasText: BUSY }).first();
  await busy.waitFor({ timeout: 60000 });
  await busy.getByRole('link').click();
  const cpu = usage(page).chart('cpu');
  await cpu.waitFor({ timeout: 20000 });
  // The header's namespace is all of them: the pod's page shares Top's poll,
  // history and all.
  assert.ok(await until(async () => ((await cpu.locator('polyline').getAttribute('points')) ?? '').split(' ').length >= 2, 20000, 200),
    'the line, from the shared history');
  // The figures come from the shared poll at once; the shares once the
  // pod itself is read.
  const cpuWords = usage(page).words('cpu');
  assert.ok(await until(async () => shares(await cpuWords.innerText().catch(() => ''), /^(\d+)m · (\d+)% of request 500m · (\d+)% of limit 1000m$/, [900, 180, 90]), 20000, 100),
    `the pod's CPU: ${await cpuWords.innerText().catch(() => 'none')}`);
  assert.match(await usage(page).words('memory').innerText(), /^70\dMi · 13\d% of request 512Mi · 6\d% of limit 1Gi$/);
  assert.deepEqual(await cpu.locator('[data-mark]').evaluateAll((ls) => ls.map((l) => l.dataset.mark)), ['request', 'limit']);
  // The Deployment: its two pods summed (through its ReplicaSet), against
  // their requests and limits summed.
  await page.goto(`${app.url}#/o/deployments.apps/demo-shop/${BUSY}`);
  const words = usage(page).words('cpu');
  assert.ok(await until(async () => shares(await words.innerText().catch(() => ''), /^(\d+)m · (\d+)% of request 1000m · (\d+)% of limit 2000m$/, [1800, 180, 90]), 20000, 200),
    `the Deployment's CPU: ${await words.innerText().catch(() => 'none')}`);
  assert.match(await usage(page).chart('cpu').locator('figcaption b').innerText(), /^CPU of its 2 pods, last \d+ min$/);
  // A node: its allocatable.
  const node = kubectl('-n', 'demo-shop', 'get', 'pods', '-l', `app=${BUSY}`, '-o', 'jsonpath={.items[0].spec.nodeName}');
  await page.goto(`${app.url}#/o/nodes/${node}`);
  await usage(page).chart('memory').locator('[data-mark=allocatable]').waitFor({ state: 'attached', timeout: 20000 });
  assert.match(await usage(page).words('cpu').innerText(), /^\d+m · \d+% of allocatable \d+m$/);
});

test('X-ray shows the metrics polls, which go on for a minute after Top is left', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/xray`);
  const poll = xray(page).polls();
  await poll.first().waitFor({ timeout: 10000 });
  const text = (await poll.allInnerTexts()).join('\n');
  assert.match(text, /pods in all namespaces/);
  assert.match(text, /nodes/);
  assert.match(text, /fresh/);
  assert.doesNotMatch(text, /pods in demo-shop/, 'the pod page read the poll Top had, not one of its own');
});


test('the graphs keep their history across a reload: the pod\'s line has its points at once, kept by the launcher', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/top`);
  const busy = top(page).rows('pods').filter({ hasText: BUSY }).first();
  await busy.waitFor({ timeout: 60000 });
  await busy.getByRole('link').click();
  const cpu = usage(page).chart('cpu');
  const points = async () => ((await cpu.locator('polyline').getAttribute('points', { timeout: 1000 }).catch(() => null)) ?? '')
    .split(' ').filter(Boolean).length;
  assert.ok(await until(async () => (await points()) >= 2, 60000, 200), 'two points in this visit');
  const before = await points();
  // What hiding the tab does (headless Chromium never hides one): the
  // points are saved at once.
  await page.evaluate(() => {
    Object.defineProperty(document, 'hidden', { get: () => true, configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  });
  const kept = async () => {
    const r = await fetch(`${app.api}/glass/saved/usage.pods`);
    return r.status === 200 ? JSON.parse(await r.text()) : null;
  };
  assert.ok(await until(async () => (await kept())?.series.some(([key, , , ps]) => key.includes(BUSY) && ps.length >= before), 10000, 200),
    'the launcher keeps the points');
  await page.reload();
  await cpu.waitFor({ timeout: 20000 });
  // A new visit's poll adds a point every 15 s: this many within seconds
  // of the reload are the kept ones.
  assert.ok(await until(async () => (await points()) >= before, 5000, 100), `the line after the reload: ${await points()} points, ${before} before`);
  await page.goto(`${app.url}#/xray`);
  const poll = xray(page).polls().filter({ hasText: 'pods in all namespaces' });
  assert.ok(Number(await poll.getByTestId('xray-poll-kept').innerText()) >= before, 'X-ray says how many were kept');
});

/** A resource table's headers and rows (see pages.mjs). */
const grid = (page) => table(page).grid();

/** Millicores from `900m`, bytes from `700Mi`. */
const millis = (t) => Number(t.replace(/m$/, ''));
const mebibytes = (t) => Number(t.replace(/Mi$/, ''));

test('the pod table has CPU and memory columns that match kubectl top pod, sort as numbers, and hide with a remembered toggle', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/r/pods?ns=demo-shop`);
  await table(page).loaded();
  const busyKey = (g) => g.rows.find((r) => r.key.startsWith(`demo-shop/${BUSY}-`));
  assert.ok(await until(async () => {
    const g = await grid(page);
    // Figures with the poll; shares once the pods' requests are read.
    const busy = busyKey(g) ?? { cells: [] };
    return g.headers.includes('CPU') && /m$/.test(g.cell(busy, 'CPU') ?? '') && /%$/.test(g.cell(busy, '%CPU/R') ?? '');
  }, 120000, 500), `the columns: ${JSON.stringify((await grid(page)).headers)}; ${await usage(page).state().innerText().catch(() => '')}`);
  let g = await grid(page);
  assert.deepEqual(g.headers.slice(-6), ['CPU', '%CPU/R', '%CPU/L', 'MEM', '%MEM/R', '%MEM/L']);
  const busy = busyKey(g);
  const name = busy.key.split('/')[1];
  // kubectl top reads the same metrics-server; kwok's usage wobbles by a
  // millicore, and the page may be one poll behind.
  const [, topCpu, topMem] = kubectl('-n', 'demo-shop', 'top', 'pod', name, '--no-headers').trim().split(/\s+/);
  assert.ok(Math.abs(millis(g.cell(busy, 'CPU')) - millis(topCpu)) <= 20, `page ${g.cell(busy, 'CPU')}, kubectl top ${topCpu}`);
  assert.ok(Math.abs(mebibytes(g.cell(busy, 'MEM')) - mebibytes(topMem)) <= 2, `page ${g.cell(busy, 'MEM')}, kubectl top ${topMem}`);
  // 900m of a 500m request and a 1-core limit; 700Mi of 512Mi and 1Gi.
  assert.match(g.cell(busy, '%CPU/R'), /^1[789]\d%$/);
  assert.match(g.cell(busy, '%CPU/L'), /^9\d%$/);
  assert.match(g.cell(busy, '%MEM/R'), /^13\d%$/);
  assert.match(g.cell(busy, '%MEM/L'), /^6\d%$/);

  // Sorted by CPU: by number (900m after 400m, which text would not do),
  // both ways, with the pods that have no figures last.
  const header = page.getByTestId('column-header').filter({ hasText: /^CPU/ });
  for (const descending of [false, true]) {
    await header.click();
    await page.getByTestId('column-header').filter({ hasText: descending ? 'CPU ▼' : 'CPU ▲' }).waitFor({ timeout: 5000 });
    g = await grid(page);
    const figures = g.rows.map((r) => g.cell(r, 'CPU')).filter((t) => t !== '').map(millis);
    assert.ok(figures.length >= 4 && new Set(figures.map((f) => String(f).length)).size > 1, `figures of several widths: ${figures}`);
    const sorted = [...figures].sort((a, b) => (descending ? b - a : a - b));
    assert.deepEqual(figures, sorted, `by CPU, ${descending ? 'largest' : 'smallest'} first`);
    const blank = g.rows.findIndex((r) => g.cell(r, 'CPU') === '');
    assert.ok(blank === -1 || g.rows.slice(blank).every((r) => g.cell(r, 'CPU') === ''), 'no figure: last');
  }

  // Hidden, and still hidden after a reload; then back.
  await usage(page).toggle().click();
  assert.ok(await until(async () => !(await grid(page)).headers.includes('CPU'), 5000, 50), 'the columns go');
  await page.reload();
  await table(page).loaded();
  assert.equal(await usage(page).toggle().getAttribute('aria-pressed'), 'false');
  assert.ok(!(await grid(page)).headers.includes('CPU'), 'still hidden after a reload');
  await usage(page).toggle().click();
  assert.ok(await until(async () => (await grid(page)).headers.includes('%MEM/L'), 20000, 100), 'the columns are back');
});

test('the node table\'s CPU and memory match kubectl top node', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/r/nodes`);
  await table(page).loaded();
  // Figures come with the poll, shares once the nodes' allocatable is read.
  assert.ok(await until(async () => {
    const g = await grid(page);
    return g.headers.includes('%MEM') && g.rows.length >= 5 && g.rows.every((r) => g.cell(r, '%CPU') !== '');
  }, 30000, 200), `the node columns: ${JSON.stringify((await grid(page)).rows.slice(0, 2))}`);
  const g = await grid(page);
  assert.deepEqual(g.headers.slice(-4), ['CPU', '%CPU', 'MEM', '%MEM']);
  const top = Object.fromEntries(kubectl('top', 'node', '--no-headers').trim().split('\n').map((l) => {
    const [node, cpu, cpuPct, mem, memPct] = l.trim().split(/\s+/);
    return [node, { cpu, cpuPct, mem, memPct }];
  }));
  let compared = 0;
  for (const row of g.rows) {
    const t = top[row.key];
    if (!t) continue;
    compared++;
    // Within one poll: the busy pods came and went before this test.
    assert.ok(Math.abs(millis(g.cell(row, 'CPU')) - millis(t.cpu)) <= Math.max(20, millis(t.cpu) * 0.05), `${row.key}: page ${g.cell(row, 'CPU')}, kubectl top ${t.cpu}`);
    assert.ok(Math.abs(Number(g.cell(row, '%CPU').replace('%', '')) - Number(t.cpuPct.replace('%', ''))) <= 2, `${row.key}: ${g.cell(row, '%CPU')} vs ${t.cpuPct}`);
    assert.ok(Math.abs(Number(g.cell(row, '%MEM').replace('%', '')) - Number(t.memPct.replace('%', ''))) <= 2, `${row.key}: ${g.cell(row, '%MEM')} vs ${t.memPct}`);
  }
  assert.ok(compared >= 5, `${compared} nodes compared`);
});

test('the restricted user sees its own namespace\'s pod metrics, and is told the nodes\' are forbidden', async (t) => {
  const restricted = await startApp(process.env.RESTRICTED_KUBECONFIG);
  t.after(async () => { await restricted.stop(); });
  const { page } = app;
  await page.goto(`${restricted.url}#/r/pods?ns=demo-shop`);
  await table(page).loaded();
  assert.ok(await until(async () => {
    const g = await grid(page);
    const busy = g.rows.find((r) => r.key.startsWith(`demo-shop/${BUSY}-`));
    const cpu = /^(\d+)m$/.exec(g.cell(busy, 'CPU') ?? '');
    return busy && cpu && near(cpu[1], 900);
  }, 120000, 500), `its pods' figures: ${await usage(page).state().innerText().catch(() => 'no state line')}`);
  await page.goto(`${restricted.url}#/top`);
  const nodes = top(page).state('nodes');
  assert.ok(await until(async () => (await nodes.getAttribute('data-state').catch(() => null)) === 'forbidden', 20000, 200),
    `the nodes: ${await nodes.innerText().catch(() => 'none')}`);
  // All namespaces' pods are not its to read either.
  const pods = top(page).state('pods');
  assert.ok(await until(async () => (await pods.getAttribute('data-state').catch(() => null)) === 'forbidden', 20000, 200),
    `all pods: ${await pods.innerText().catch(() => 'none')}`);
  assert.equal(await top(page).rows('pods').count(), 0);
});

test('with metrics-server gone, one line says so, and the other views work', async (t) => {
  const { page } = app;
  const errorsBefore = app.errors.length;
  const saved = JSON.parse(kubectl('get', 'apiservice', 'v1beta1.metrics.k8s.io', '-o', 'json'));
  // As the API server sees a stopped metrics-server: nothing answers on the
  // APIService's port (503).
  kubectl('patch', 'apiservice', 'v1beta1.metrics.k8s.io', '--type=merge', '-p', '{"spec":{"service":{"port":1}}}');
  t.after(async () => {
    const { metadata: { name, labels }, spec } = saved;
    apply({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name, labels }, spec });
  });
  await page.goto(`${app.url}#/`);
  await page.goto(`${app.url}#/top`);
  const state = top(page).state('pods');
  assert.ok(await until(async () => (await state.getAttribute('data-state').catch(() => null)) === 'not-served', 30000, 200),
    `the pods' state: ${await state.innerText().catch(() => 'none')}`);
  assert.match(await state.innerText(), /503.*install metrics-server, or check that it is running/);
  assert.equal(await top(page).state('nodes').getAttribute('data-state'), 'not-served');
  // The rest of the app is unaffected; a pod table no earlier view
  // polled says so once, with no CPU column.
  await page.goto(`${app.url}#/r/pods?ns=demo-data`);
  await table(page).loaded(20000);
  const line = usage(page).state();
  assert.ok(await until(async () => (await line.getAttribute('data-state').catch(() => null)) === 'not-served', 30000, 200),
    `the table's line: ${await line.innerText().catch(() => 'none')}`);
  assert.equal(await line.count(), 1);
  assert.ok(!(await grid(page)).headers.includes('CPU'), 'no empty CPU column');
  // With no sample, the table did not watch its pods' specs for their
  // requests (such a watch would linger a minute on X-ray; the table's own
  // stops as it is left).
  await page.goto(`${app.url}#/xray`);
  await xray(page).informers().first().waitFor({ timeout: 10000 });
  const watched = (await xray(page).informers().allInnerTexts()).filter((t) => t.startsWith('/api/v1/namespaces/demo-data/pods'));
  assert.deepEqual(watched, []);
  assert.deepEqual(app.errors.slice(errorsBefore).filter((e) => !/status of 503/.test(e)), []);
});
