// The relationship map in Chromium with N pods (not a test; it asserts
// nothing about time): a namespace of N pods in groups of 50 (each its
// own label set, a Service selecting each), the namespace's map opened
// from a link, and, as the page itself reports it ("joined in … ms", the
// rules' join of every informer's items into the graph and its cut):
// the time from the route change until every pod is counted, the join's
// time then, the join's time after one pod is deleted, and the frames
// while the map scrolls (BENCH_TRACE=file: a Chromium trace of them,
// the main thread summed by kind of work; BENCH_PROFILE=file: a CPU
// profile of them, the functions with the most self time).
//
//   node e2e/bench/map.mjs <api base under its token> [pods]
import { fillNamespace, frameSummary, launchChromium, nodeBase, pool, recordFrames, profiled, releaseNamespace, settled, traced } from './lib.mjs';

const [base = process.env.KUBEGLASS_API ?? 'http://127.0.0.1:8001', countArg = '10000'] = process.argv.slice(2);
const N = Number(countArg);
const NS = 'bench-map';
const api = (path, init = {}) => fetch(`${nodeBase(base)}${path}`, {
  ...init, headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
});
const nodes = (await (await api('/api/v1/nodes')).json()).items.map((n) => n.metadata.name).filter((n) => n.startsWith('kwok-'));
if (nodes.length === 0) throw new Error('no kwok nodes: run `make demo` first');
const KEEP = process.env.BENCH_KEEP === '1';
await fillNamespace(api, {
  ns: NS, resource: 'pods', n: N, keep: KEEP,
  object: (name, i) => ({
    metadata: { name, labels: { app: `web-${Math.floor(i / 50)}` } },
    spec: { nodeName: nodes[i % nodes.length], containers: [{ name: 'c', image: 'registry.example/bench:1' }] },
  }),
});
await pool([...Array(Math.ceil(N / 50)).keys()], 16, async (k) => {
  const r = await api(`/api/v1/namespaces/${NS}/services`, { method: 'POST', body: JSON.stringify({
    metadata: { name: `web-${k}` }, spec: { selector: { app: `web-${k}` }, ports: [{ port: 80 }] } }) });
  if (!r.ok && r.status !== 409) throw new Error(`service ${k}: ${r.status} ${await r.text()}`);
});

// kwok marks the new pods Running for a while after they are made: the
// map is measured on a quiet namespace (the e2e test measures it while
// pods arrive).
await settled(base, api, NS, 'pods');

const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
await page.goto(`${base}/ui/#/xray`);
await page.getByTestId('xray-informer').first().waitFor({ timeout: 60000 });
const summary = () => page.evaluate(() => document.querySelector('[data-testid=map-summary]')?.textContent ?? '');
const joined = (s) => Number(/joined in (\d+) ms/.exec(s)?.[1]);
// The namespace picked first (on the X-ray page), then the route changed.
await page.getByTestId('namespace-input').fill(NS);
await page.getByTestId('namespace-input').press('Enter');
await page.waitForTimeout(1000);
const t0 = await page.evaluate(() => { const t = performance.now(); location.hash = '#/map'; return t; });
await page.waitForFunction((n) => (document.querySelector('[data-testid=map-summary]')?.textContent ?? '').includes(`(${n} pods)`),
  N, { timeout: 600000, polling: 50 });
const counted = await page.evaluate((t) => performance.now() - t, t0);
const first = await summary();
const inDom = await page.locator('[data-testid=map-node]').count();
console.log(`${N} pods: every pod counted ${counted.toFixed(0)} ms after the route change; ${first}; ${inDom} nodes in the DOM (those near the view)`);
await page.waitForTimeout(2000);
const victim = (await (await api(`/api/v1/namespaces/${NS}/pods?limit=1`)).json()).items[0].metadata.name;
await api(`/api/v1/namespaces/${NS}/pods/${victim}?gracePeriodSeconds=0`, { method: 'DELETE' });
await page.waitForFunction((n) => (document.querySelector('[data-testid=map-summary]')?.textContent ?? '').includes(`(${n} pods)`),
  N - 1, { timeout: 60000, polling: 20 });
const after = await summary();
console.log(`after one pod is deleted: join ${joined(after)} ms (${after})`);
const [frames] = await profiled(page, () => traced(browser, page, () => Promise.all([recordFrames(page, 4000), page.evaluate(async () => {
  const c = document.querySelector('[data-testid=map-canvas]');
  const end = performance.now() + 4000;
  while (performance.now() < end) {
    c.scrollTop = (c.scrollTop + 40) % Math.max(1, c.scrollHeight - c.clientHeight);
    await new Promise((r) => requestAnimationFrame(r));
  }
})])));
console.log(`scrolling the map: ${frameSummary(frames)}`);
await browser.close();
await releaseNamespace(api, NS, KEEP);
