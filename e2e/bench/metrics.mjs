// The cost of metrics for many pods (not a test; it asserts nothing about
// time): bytes and fetch time of one poll of metrics.k8s.io, its decode
// time in the tab (the X-ray page's figures), and frame times while a table
// of N pods takes in each poll into its CPU and memory columns, against the
// same table with the columns hidden. Run against a running app after
// `make demo` (it has a real metrics-server):
//
//   node e2e/bench/metrics.mjs http://127.0.0.1:8001/<token> 10000
//
// It creates namespace `bench-metrics` with N pods bound straight to the
// kwok nodes, each saying (in kwok's usage annotations) that it uses 1 to
// 200 millicores and 8 to 127 MiB, waits until metrics-server reports them
// all, measures, and deletes the namespace (BENCH_KEEP=1 keeps it and
// reuses it when it already holds N pods).
import { fillNamespace, frameSummary, launchChromium, nodeBase, recordFrames, releaseNamespace, settled, sleep } from './lib.mjs';

const [base = process.env.KUBEGLASS_API ?? 'http://127.0.0.1:8001', countArg = '10000'] = process.argv.slice(2);
const N = Number(countArg);
const NS = 'bench-metrics';
const KEEP = process.env.BENCH_KEEP === '1';
const api = (path, init = {}) => fetch(`${nodeBase(base)}${path}`, {
  ...init, headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
});
const nodes = (await (await api('/api/v1/nodes')).json()).items.map((n) => n.metadata.name)
  .filter((n) => n.startsWith('kwok-'));
if (nodes.length === 0) throw new Error('no kwok nodes: run `make demo` first');

await fillNamespace(api, {
  ns: NS, resource: 'pods', n: N, keep: KEEP,
  object: (name, i) => ({
    metadata: {
      name,
      labels: { app: 'bench-metrics' },
      annotations: { 'kwok.x-k8s.io/usage-cpu': `${1 + (i % 200)}m`, 'kwok.x-k8s.io/usage-memory': `${8 + (i % 120)}Mi` },
    },
    spec: {
      nodeName: nodes[i % nodes.length],
      containers: [{ name: 'c', image: 'registry.example/bench:1', resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m', memory: '128Mi' } } }],
    },
  }),
});
await settled(base, api, NS, 'pods');

// metrics-server reports a pod from its second scrape that saw it.
const metricsPath = `/apis/metrics.k8s.io/v1beta1/namespaces/${NS}/pods`;
let poll;
const waitStart = Date.now();
for (;;) {
  const t0 = performance.now();
  const r = await api(metricsPath);
  const body = Buffer.from(await r.arrayBuffer());
  const ms = performance.now() - t0;
  const items = r.ok ? JSON.parse(body).items.length : 0;
  poll = { status: r.status, bytes: body.length, ms, items };
  if (items >= N) break;
  if (Date.now() - waitStart > 600000) throw new Error(`metrics-server reports ${items} of ${N} pods after 10 min (status ${r.status})`);
  console.log(`  metrics-server reports ${items} of ${N} pods`);
  await sleep(5000);
}
console.log(`one poll of ${N} pods through the proxy (node's fetch): ${(poll.bytes / 1024).toFixed(0)} KiB, ${poll.ms.toFixed(0)} ms`);

const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
await page.goto(`${base}/ui/#/r/pods?ns=${NS}`);
await page.waitForFunction((n) => (document.querySelector('[data-testid="row-count"]')?.textContent ?? '').startsWith(`${n} of ${n}`), N, { timeout: 300000, polling: 100 });
const headers = () => page.getByTestId('column-header').allInnerTexts();
const cpuShown = () => page.waitForFunction(() => [...document.querySelectorAll('[data-testid="resource-row"] .vcell.usage')].some((c) => /m$/.test(c.textContent)), null, { timeout: 120000, polling: 100 });
await cpuShown();
// Sorted by CPU, largest first: each poll moves rows, as a person watching
// the busiest pods sees it.
await page.getByTestId('column-header').filter({ hasText: /^CPU/ }).click();
await page.getByTestId('column-header').filter({ hasText: /^CPU/ }).click();
console.log(`columns: ${(await headers()).join(' | ')}`);
await sleep(2000);
const withColumns = await recordFrames(page, 46000);
console.log(`${N} pods, CPU and memory columns on, sorted by CPU, three polls in 46 s: ${frameSummary(withColumns)}`);
const slow = withColumns.filter((f) => f > 50).map((f) => f.toFixed(0));
console.log(`  frames over 50 ms: ${slow.length ? slow.join(', ') : 'none'}`);

await page.getByTestId('usage-toggle').click();
await page.waitForFunction(() => ![...document.querySelectorAll('[data-testid="column-header"]')].some((h) => h.textContent.startsWith('CPU')), null, { timeout: 10000 });
await sleep(2000);
const without = await recordFrames(page, 46000);
console.log(`the same table, columns hidden (no poll): ${frameSummary(without)}`);
await page.getByTestId('usage-toggle').click();
await cpuShown();

// The tab's own figures for the poll (the X-ray page).
await page.goto(`${base}/ui/#/xray`);
const row = page.getByTestId('xray-poll').filter({ hasText: `pods in ${NS}` });
await row.first().waitFor({ timeout: 20000 });
const xray = await row.first().evaluate((tr) => ({ ...tr.dataset }));
console.log(`in the tab: GET and decode ${Number(xray.tookMs).toFixed(0)} ms, ${(Number(xray.bytes) / 1024).toFixed(0)} KiB, decoded in ${Number(xray.decodeMs).toFixed(0)} ms`);
const memory = await page.evaluate(() => performance.memory?.usedJSHeapSize ?? 0);
console.log(`JS heap after: ${(memory / 2 ** 20).toFixed(0)} MiB`);

await browser.close();
await releaseNamespace(api, NS, KEEP);
