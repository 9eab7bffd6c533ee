// The relationship map against the real cluster: the demo's frontend
// Deployment's map names its ReplicaSets, pods, Service, ConfigMap and
// nodes as kubectl reads them, a pod made by scaling appears without a
// reload and without moving anything already drawn, the arrow keys move
// along it, a Service without a selector reaches the pod its EndpointSlice
// names; and a namespace of 5,000 pods draws folded into groups, only those
// near the view in the DOM, the keys reaching the others, with
// the frames while it scrolls and more pods arrive measured (printed, not
// asserted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, kubectl, apply, cleanUp, until } from '../lib.mjs';
import { deleteAtOnce, frameSummary, pool, recordFrames } from '../bench/lib.mjs';

const NS = 'demo-shop';
const app = withApp();

const names = (args) => kubectl(...args, '-o', 'name').split('\n').filter(Boolean).map((n) => n.split('/')[1]);
const nodeOf = (kind, name) => app.page.locator(`[data-testid=map-node][data-kind="${kind}"][data-name="${name}"]`);
const drawnNames = (kind) => app.page.locator(`[data-testid=map-node][data-kind="${kind}"]`).evaluateAll((els) => els.map((e) => e.dataset.name).sort());
const places = () => app.page.getByTestId('map-node').evaluateAll((els) => Object.fromEntries(els.map((e) => [e.dataset.id, e.style.transform])));

test("the frontend Deployment's map shows what it is joined to, live, and keeps what stays in place", async (t) => {
  const replicas = Number(kubectl('-n', NS, 'get', 'deploy', 'frontend', '-o', 'jsonpath={.spec.replicas}'));
  t.after(() => cleanUp(['-n', NS, 'scale', 'deployment/frontend', `--replicas=${replicas}`]));
  const { page } = app;
  await page.goto(`${app.url}#/o/deployments.apps/${NS}/frontend`);
  await page.getByTestId('object-map').click();
  assert.match(page.url(), /#\/map\/deployments\.apps\/demo-shop\/frontend$/);
  // As many pods as the Deployment asks for (a pod an earlier test's
  // scale-down is ending may still be listed for a moment).
  assert.ok(await until(() => names(['-n', NS, 'get', 'pods', '-l', 'app=frontend']).length === replicas, 60000), 'the frontend has settled');
  const pods = names(['-n', NS, 'get', 'pods', '-l', 'app=frontend']).sort();
  assert.ok(await until(async () => JSON.stringify(await drawnNames('Pod')) === JSON.stringify(pods), 30000),
    `the map's pods ${await drawnNames('Pod')} are kubectl's ${pods}`);
  for (const rs of names(['-n', NS, 'get', 'rs', '-l', 'app=frontend'])) await nodeOf('ReplicaSet', rs).waitFor({ timeout: 5000 });
  await nodeOf('Service', 'frontend').waitFor({ timeout: 5000 });
  await nodeOf('ConfigMap', 'feature-flags').waitFor({ timeout: 5000 });
  const hosts = new Set(kubectl('-n', NS, 'get', 'pods', '-l', 'app=frontend', '-o', 'jsonpath={.items[*].spec.nodeName}').split(' '));
  for (const host of hosts) await nodeOf('Node', host).waitFor({ timeout: 5000 });
  // Every node a link: a pod to its page.
  assert.equal(await nodeOf('Pod', pods[0]).getAttribute('href'), `#/o/pods/${NS}/${pods[0]}`);
  assert.ok((await page.getByTestId('map-edge').count()) >= 3 + 3 + 3, 'an edge per relation: ReplicaSet → pods, Service → pods, pods → ConfigMap');

  // The map opens on its object, focused; the arrow keys go along the edges.
  const focused = () => page.evaluate(() => document.activeElement?.dataset?.id ?? null);
  assert.ok(await until(async () => (await focused()) === `Deployment/${NS}/frontend`, 5000),
    `focused: ${await focused()}; the node: ${await page.evaluate(() => document.getElementById('map:Deployment/demo-shop/frontend')?.outerHTML)}`);
  await page.keyboard.press('ArrowRight');
  assert.match(await focused(), /^ReplicaSet\/demo-shop\/frontend-/);
  await page.keyboard.press('ArrowRight');
  assert.match(await focused(), /^Pod\/demo-shop\/frontend-/);

  // A pod more: it appears, and nothing already drawn moves.
  const before = await places();
  kubectl('-n', NS, 'scale', 'deployment/frontend', `--replicas=${replicas + 1}`);
  assert.ok(await until(async () => (await drawnNames('Pod')).length === replicas + 1, 30000), `a pod more drawn: ${await drawnNames('Pod')}`);
  const added = names(['-n', NS, 'get', 'pods', '-l', 'app=frontend']).filter((p) => !pods.includes(p));
  assert.deepEqual(await drawnNames('Pod'), [...pods, ...added].sort());
  const after = await places();
  for (const [id, at] of Object.entries(before)) {
    if (id in after) assert.equal(after[id], at, `${id} stayed where it was`);
  }
  assert.equal(page.url().includes('#/map/'), true, 'no reload, no navigation');

  // A Service without a selector reaches the pod its hand-written
  // EndpointSlice names (and no other), live.
  t.after(() => cleanUp(['-n', NS, 'delete', 'service/frontend-direct', 'endpointslice/frontend-direct-1', '--ignore-not-found']));
  const uid = kubectl('-n', NS, 'get', 'pod', pods[0], '-o', 'jsonpath={.metadata.uid}');
  apply({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'frontend-direct', namespace: NS }, spec: { ports: [{ port: 80 }] } });
  apply({
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', addressType: 'IPv4', ports: [{ port: 80 }],
    metadata: { name: 'frontend-direct-1', namespace: NS, labels: { 'kubernetes.io/service-name': 'frontend-direct' } },
    endpoints: [{ addresses: ['10.9.9.9'], targetRef: { kind: 'Pod', namespace: NS, name: pods[0], uid } }],
  });
  await nodeOf('Service', 'frontend-direct').waitFor({ timeout: 15000 });
  const from = (id) => page.locator(`[data-testid=map-edge][data-from="${id}"]`).evaluateAll((es) => es.map((e) => e.dataset.to));
  assert.ok(await until(async () => (await from(`Service/${NS}/frontend-direct`)).length > 0, 15000), 'an edge from the Service');
  assert.deepEqual(await from(`Service/${NS}/frontend-direct`), [`Pod/${NS}/${pods[0]}`], 'the slice names one pod: one edge, to it');
});

test('a namespace of 5,000 pods draws folded into groups and keeps drawing frames', async (t) => {
  const ns = `map-e2e-${Date.now() % 100000}`;
  // Gone before the next test: the 5,100 pods at once (one delete of the
  // collection, no grace: kwok ending each would take minutes of both
  // cores), then the namespace, waited for (while it ends, the namespace
  // controller LISTs its pods, which tests counting LISTs would see).
  t.after(async () => {
    const r = await deleteAtOnce((p, init) => fetch(`${app.api}${p}`, { ...init, headers: { 'content-type': 'application/json' } }), ns);
    if (!r.ok) process.stderr.write(`cleanup: deleting the pods of ${ns}: ${r.status} ${await r.text()}\n`);
    cleanUp(['delete', 'namespace', ns, '--ignore-not-found', '--timeout=180s']);
  });
  kubectl('create', 'namespace', ns);
  const hosts = names(['get', 'nodes']).filter((n) => n.startsWith('kwok-'));
  assert.ok(hosts.length > 0, 'kwok nodes');
  const api = (path, body) => fetch(`${app.api}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const makePods = (from, n) => pool([...Array(n).keys()].map((i) => from + i), 16, async (i) => {
    const r = await api(`/api/v1/namespaces/${ns}/pods`, {
      metadata: { name: `p-${String(i).padStart(5, '0')}`, labels: { app: 'bulk', bucket: String(i % 100) } },
      spec: { nodeName: hosts[i % hosts.length], containers: [{ name: 'c', image: 'registry.example/bulk:1' }] },
    });
    if (!r.ok) throw new Error(`create pod ${i}: ${r.status} ${await r.text()}`);
  });
  await makePods(0, 5000);
  const { page } = app;
  await page.goto(`${app.url}#/map`);
  await page.getByTestId('namespace-input').fill(ns);
  await page.getByTestId('namespace-input').press('Enter');
  const summary = () => page.getByTestId('map-summary').innerText().catch(() => '');
  assert.ok(await until(async () => (await summary()).includes('(5000 pods)'), 90000), `the map counts 5,000 pods: ${await summary()}`);
  // Pods without a controller fold by their label set (the apiserver adds
  // the node's zone to a bound pod's labels): each group is a link to the
  // pods table under its labels, which selects exactly its pods.
  const drawnGroups = () => page.locator('[data-testid=map-node]').evaluateAll((els) => els
    .filter((e) => / pods$/.test(e.dataset.kind)).map((e) => ({ id: e.dataset.id, count: Number(e.dataset.count), href: e.getAttribute('href'), y: Number(/,\s*(-?\d+)px/.exec(e.style.transform)?.[1]) })));
  // A hundred groups make a column taller than a few screens: only those
  // near the view are in the DOM.
  const total = Number((await summary()).match(/^(\d+) nodes/)?.[1]);
  const first = await drawnGroups();
  const inDom = await page.getByTestId('map-node').count();
  assert.ok(inDom < total, `only the nodes near the view are drawn: ${inDom} of ${total}`);
  // Scrolling a screen at a time (round again at the bottom) finds every
  // group, and their counts add up to every pod.
  const seen = new Map();
  const screen = () => page.getByTestId('map-canvas').evaluate((c) => {
    c.scrollTop = c.scrollTop + c.clientHeight >= c.scrollHeight ? 0 : c.scrollTop + c.clientHeight;
  });
  const pods = () => [...seen.values()].reduce((n, g) => n + g.count, 0);
  assert.ok(await until(async () => {
    for (const g of await drawnGroups()) seen.set(g.id, g);
    await screen();
    return pods() === 5000;
  }, 60000, 100), `the groups drawn while scrolling count every pod: ${pods()} in ${seen.size} groups`);
  const groups = [...seen.values()];
  assert.ok(groups.length >= 100, `at least one group per bucket: ${groups.length}`);
  assert.ok((await page.getByTestId('map-node').count()) < total, 'scrolled, still only the nodes near the view');
  // The arrow keys go down the column to groups that were not drawn at first.
  await page.getByTestId('map-canvas').evaluate((c) => { c.scrollTop = 0; c.scrollLeft = 0; });
  const focused = () => page.evaluate(() => document.activeElement?.dataset?.id ?? null);
  const top = first.reduce((a, b) => (b.y < a.y ? b : a)).id;
  await page.locator(`[id="map:${top}"]`).focus();
  const firstIds = new Set(first.map((g) => g.id));
  let presses = 0;
  while (firstIds.has(await focused()) && presses < 200) {
    await page.keyboard.press('ArrowDown');
    presses += 1;
  }
  const reached = await focused();
  assert.ok(reached && reached.startsWith('group/') && !firstIds.has(reached),
    `after ${presses} presses the focus is on a group not drawn at first: ${reached}`);
  for (const g of groups.slice(0, 3)) {
    const m = new RegExp(`^#/r/pods\\?ns=${ns}&l=([^&]+)$`).exec(g.href);
    assert.ok(m, `a group links to its pods: ${g.href}`);
    const selected = names(['-n', ns, 'get', 'pods', '-l', decodeURIComponent(m[1])]);
    assert.equal(selected.length, g.count, `${decodeURIComponent(m[1])} selects the group's ${g.count} pods`);
  }
  assert.equal(await page.locator('[data-testid=map-node][data-kind="Pod"]').count(), 0, 'no pod drawn alone');

  console.log(`map of 5,000 pods: ${await summary()}`);
  // Frames while the map scrolls, then while it scrolls and 100 pods arrive.
  const scroll = (ms) => page.evaluate(async (ms) => {
    const c = document.querySelector('[data-testid=map-canvas]');
    const end = performance.now() + ms;
    while (performance.now() < end) {
      c.scrollTop = (c.scrollTop + 40) % Math.max(1, c.scrollHeight - c.clientHeight);
      c.scrollLeft = (c.scrollLeft + 20) % Math.max(1, c.scrollWidth - c.clientWidth + 1);
      await new Promise((r) => requestAnimationFrame(r));
    }
  }, ms);
  const [still] = await Promise.all([recordFrames(page, 3000), scroll(3000)]);
  console.log(`map of 5,000 pods, scrolling: ${frameSummary(still)}`);
  const [busy] = await Promise.all([recordFrames(page, 4000), scroll(4000), makePods(5000, 100)]);
  console.log(`map of 5,000 pods, scrolling while 100 pods arrive: ${frameSummary(busy)}`);
  assert.ok(await until(async () => (await summary()).includes('(5100 pods)'), 30000), `the new pods counted: ${await summary()}`);
  console.log(`map of 5,100 pods: ${await summary()}`);
  assert.equal(app.errors.length, 0, `page errors: ${app.errors}`);
});
