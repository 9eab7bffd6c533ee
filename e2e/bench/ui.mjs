// UI measurements with many pods (not a test; it asserts nothing about time):
// time to first rows and to full sync of the pods table, and frame times
// while scrolling and while 200 events/s arrive. Run against a running app
// after `make demo`:
//
//   node e2e/bench/ui.mjs http://127.0.0.1:8001 20000
//
// It creates namespace `bench-ui` with N pods bound straight to the kwok
// nodes (kwok marks them Running), measures, and deletes the namespace.
// BENCH_RESOURCE=configmaps uses ConfigMaps instead, in `bench-ui-cm`
// (no kwok behind them: for row counts pods would drown the cluster in).
// BENCH_KEEP=1 keeps the namespace afterwards and reuses it when it
// already holds N pods. BENCH_USAGE=0 hides the pod table's CPU and memory
// columns (shown by default, as a person first sees the table).
// BENCH_PROFILE=file takes a CPU profile from the route change to the full
// sync and prints the functions that cost most. BENCH_TRACE=file takes a
// Chromium trace of the scrolling and sums the main thread by kind. BENCH_ALL=1
// measures the all-namespaces table instead of the namespace's (every pod
// of the cluster in one table). After the sync it prints the memory the
// table added to the JavaScript heap (V8's own count, through CDP), and the
// most WebAssembly memory the tab needed from its first page to the end
// (as the X-ray page reads it), each per row. BENCH_CPU_THROTTLE=4 slows
// the tab's CPU fourfold (Chromium's DevTools throttling) from the route
// change on: a slow tab reading the table's large unpaged list (the first
// list asks resourceVersion=0, which the watch cache answers in one piece).
// It also reads, through CDP's process list and /proc, the tab's renderer's
// resident memory at the full count and Chromium's CPU over 10 quiet
// seconds and over the changes, and ends with a line of JSON of the figures.
import { chromiumCpuOver, chromiumProcesses, fillNamespace, frameSummary, keepAliveClient, launchChromium, nodeBase, profiled, recordFrames, releaseNamespace, settled, traced, writeAtRate } from './lib.mjs';

// base: the API under its capability token, as `make demo` prints it without the trailing `ui/`.
const [base = process.env.KUBEGLASS_API ?? 'http://127.0.0.1:8001', countArg = '20000'] = process.argv.slice(2);
const N = Number(countArg);
const RESOURCE = process.env.BENCH_RESOURCE ?? 'pods';
if (!['pods', 'configmaps'].includes(RESOURCE)) throw new Error(`BENCH_RESOURCE: pods or configmaps, not ${RESOURCE}`);
const NS = RESOURCE === 'pods' ? 'bench-ui' : 'bench-ui-cm';
const api = (path, init = {}) => fetch(`${nodeBase(base)}${path}`, {
  ...init, headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
});
const nodes = (await (await api('/api/v1/nodes')).json()).items.map((n) => n.metadata.name)
  .filter((n) => n.startsWith('kwok-'));
if (nodes.length === 0) throw new Error('no kwok nodes: run `make demo` first');

const KEEP = process.env.BENCH_KEEP === '1';
const { count } = await fillNamespace(api, {
  ns: NS, resource: RESOURCE, n: N, keep: KEEP,
  // (A selector would drop remainingItemCount, so count all: a namespace's
  // ConfigMaps include kube-root-ca.crt.)
  extra: RESOURCE === 'configmaps' ? 1 : 0,
  object: (name, i) => {
    const labels = { app: 'bench', bucket: String(i % 10) };
    return RESOURCE === 'pods'
      ? { metadata: { name, labels }, spec: { nodeName: nodes[i % nodes.length], containers: [{ name: 'c', image: 'registry.example/bench:1' }] } }
      : { metadata: { name, labels }, data: { index: String(i) } };
  },
});
await settled(base, api, NS, RESOURCE);

// All the table will show (a namespace's ConfigMaps include kube-root-ca.crt;
// the all-namespaces table, everything of the kind in the cluster).
const ALL = process.env.BENCH_ALL === '1';
const countAll = async () => {
  const page = await (await api(`/api/v1/${RESOURCE}?limit=1`)).json();
  return page.items.length + (page.metadata.remainingItemCount ?? 0);
};
const total = ALL ? await countAll() : await count();

// The floor: the Table LIST the table's informer reads (from the watch
// cache, rows with their metadata), through the proxy into nothing, as a
// browser's User-Agent gets it (pretty-printed) and compact.
for (const [label, extra] of [['pretty-printed, as for a browser', ''], ['compact (pretty=false)', '&pretty=false']]) {
  const t0 = performance.now();
  const r = await fetch(`${nodeBase(base)}/api/v1/namespaces/${NS}/${RESOURCE}?resourceVersion=0&includeObject=Metadata${extra}`, {
    headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io', 'user-agent': 'Mozilla/5.0' },
  });
  let bytes = 0;
  for await (const chunk of r.body) bytes += chunk.length;
  console.log(`floor: the Table LIST, ${label}: ${(bytes / 1e6).toFixed(1)} MB in ${(performance.now() - t0).toFixed(0)} ms`);
}

const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
// The wasm memory as the X-ray page reads it, on the first page the tab
// opens: before anything has listed a pod (the overview lists every pod in
// the cluster for its count, the all-namespaces table's very informer).
const xrayMemory = async () => {
  const text = await page.getByTestId('xray-memory').innerText({ timeout: 30000 });
  return Number(/([\d.]+) MiB/.exec(text)?.[1]) * 1048576;
};
await page.goto(`${base}/ui/#/xray`);
const wasmBefore = await xrayMemory();
await page.evaluate(() => { location.hash = '#/'; });
await page.getByTestId('server-version').waitFor({ timeout: 60000 });
// BENCH_USAGE=0: the pod table without its CPU and memory columns (their
// poll and their informer of whole pods), as before they were added.
if (process.env.BENCH_USAGE === '0') await page.evaluate(() => localStorage.setItem('kubeglass.usage-columns', '0'));
// The overview lists every pod in the cluster; let it finish (and the page
// settle) so the table is measured on its own.
await page.waitForFunction(() => /^\d+$/.test(document.querySelector('[data-testid="pod-count"]')?.textContent ?? ''), null, { timeout: 120000, polling: 100 });
await page.waitForTimeout(1000);

// V8's heap before the table (precise, through CDP).
const cdp = await page.context().newCDPSession(page);
const heap = async () => (await cdp.send('Runtime.getHeapUsage')).usedSize;
await cdp.send('HeapProfiler.collectGarbage');
const heapBefore = await heap();
const THROTTLE = Number(process.env.BENCH_CPU_THROTTLE ?? '1');
if (THROTTLE > 1) {
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLE });
  console.log(`CPU throttled ${THROTTLE}× from the route change on`);
}

// Time to first rows and to full sync, from the route change (with
// BENCH_PROFILE=file, a CPU profile of it).
const [firstRows, fullSync] = await profiled(page, async () => {
  const started = await page.evaluate(([ns, resource, all]) => {
    const t0 = performance.now();
    location.hash = all ? `#/r/${resource}` : `#/r/${resource}?ns=${ns}`;
    return t0;
  }, [NS, RESOURCE, ALL]);
  await page.getByTestId('resource-row').first().waitFor({ timeout: 120000 });
  const first = await page.evaluate((t0) => performance.now() - t0, started);
  // Synced: "N of N" with N at least the count taken before (a pod the
  // cluster adds meanwhile, such as the demo's Jobs', makes it more).
  await page.waitForFunction((n) => {
    const m = /^(\d+) of (\d+)/.exec(document.querySelector('[data-testid="row-count"]')?.textContent ?? '');
    return m !== null && m[1] === m[2] && Number(m[1]) >= n;
  }, total, { timeout: 300000, polling: 50 });
  return [first, await page.evaluate((t0) => performance.now() - t0, started)];
});
const domRows = await page.getByTestId('resource-row').count();
console.log(`time to first rows ${firstRows.toFixed(0)} ms, full sync ${fullSync.toFixed(0)} ms, DOM rows ${domRows} of ${total}`
  + `${ALL ? ' (all namespaces)' : ''}`);
// The tab's renderer (the browser's largest: the one page), and all of
// Chromium, resident when the full count showed.
const rss = async () => {
  const ps = await chromiumProcesses(browser);
  return { renderer: Math.max(...ps.filter((p) => p.type === 'renderer').map((p) => p.rss)), all: ps.reduce((n, p) => n + p.rss, 0) };
};
const rssAtFull = await rss();
await page.waitForTimeout(2000);
await cdp.send('HeapProfiler.collectGarbage');
const heapAfter = await heap();
// CPU with nothing changing (k9s.mjs measures the same window).
const cpuQuiet = await chromiumCpuOver(browser, () => page.waitForTimeout(10000));

// Frame times while scrolling through the table, once the page has
// settled after the sync (a person does not scroll in the same millisecond).
await page.waitForTimeout(2000);
const scrollFrames = await traced(browser, page, () => page.evaluate(async () => {
  const body = document.querySelector('[data-testid="table-body"]');
  const deltas = [];
  let last = performance.now();
  const end = last + 5000;
  await new Promise((resolve) => {
    const step = (now) => {
      deltas.push(now - last);
      last = now;
      body.scrollTop += 240;
      if (body.scrollTop + body.clientHeight >= body.scrollHeight) body.scrollTop = 0;
      if (now < end) requestAnimationFrame(step); else resolve();
    };
    requestAnimationFrame(step);
  });
  return deltas.slice(1);
}));
console.log(`scrolling: ${frameSummary(scrollFrames)}`);

// Frame times while ~200 changes/s arrive (label patches on random pods).
const recording = recordFrames(page, 10000);
let t = Date.now();
// One PATCH every 5 ms (200/s), up to 64 in flight.
const client = keepAliveClient(base);
const { stats: writes, done: patcher } = writeAtRate(10000, (n) => client.call('PATCH',
  `/api/v1/namespaces/${NS}/${RESOURCE}/p-${String(Math.floor(Math.random() * N)).padStart(6, '0')}`,
  { metadata: { labels: { tick: String(n + 1) } } }, 'application/merge-patch+json'));
const cpuUnderChanges = await chromiumCpuOver(browser, () => patcher);
const eventFrames = await recording;
client.close();
const rate = writes.applied / ((Date.now() - t) / 1000);
cpuUnderChanges.changesPerSecond = rate;
console.log(`under ${rate.toFixed(0)} changes/s: ${frameSummary(eventFrames)}`);
const share = (c) => `${c.percentOfOneCore.toFixed(0)}% of a core (the renderer ${c.rendererPercentOfOneCore.toFixed(0)}%)`;
console.log(`Chromium's CPU: quiet ${share(cpuQuiet)}; under the changes ${share(cpuUnderChanges)}`);

// The wasm memory is read last: going to the X-ray page closes the table,
// and the high-water mark it reports then includes the overview's list, the
// table's sync and the changes: the most the tab needed for these pods.
await page.evaluate(() => { location.hash = '#/xray'; });
const wasmAfter = await xrayMemory();
const mib = (b) => (b / 1048576).toFixed(1);
console.log(`memory for ${total} rows: JS heap +${mib(heapAfter - heapBefore)} MiB (${Math.round((heapAfter - heapBefore) / total)} B/row), `
  + `wasm memory from the tab's first page to the end +${mib(wasmAfter - wasmBefore)} MiB `
  + `(${Math.round((wasmAfter - wasmBefore) / total)} B/row; ${mib(wasmBefore)} → ${mib(wasmAfter)} MiB)`);

console.log(`resident when the full count showed: the tab's renderer ${mib(rssAtFull.renderer)} MiB, all of Chromium ${mib(rssAtFull.all)} MiB`);
const rssEnd = await rss();
// From a start, as k9s.mjs times k9s from its spawn: a fresh tab (a new
// browser context, nothing cached or saved) opening the table's link, until
// the full count shows, in the page's own clock (from its navigation).
const fresh = await browser.newContext({ viewport: { width: 1360, height: 900 } });
const cold = await fresh.newPage();
await cold.goto(`${base}/ui/${ALL ? `#/r/${RESOURCE}` : `#/r/${RESOURCE}?ns=${NS}`}`);
await cold.waitForFunction((n) => {
  const m = /^(\d+) of (\d+)/.exec(document.querySelector('[data-testid="row-count"]')?.textContent ?? '');
  return m !== null && m[1] === m[2] && Number(m[1]) >= n;
}, total, { timeout: 300000, polling: 50 });
const coldFullCount = await cold.evaluate(() => performance.now());
console.log(`a fresh tab opening the table's link: the full count shown ${coldFullCount.toFixed(0)} ms after its navigation began`);
await fresh.close();
await browser.close();
await releaseNamespace(api, NS, KEEP);
// The same figures as one line of JSON (hack/bench-side.py reads it
// beside k9s.mjs's).
console.log(JSON.stringify({
  bench: 'kubeglass', pods: total, allNamespaces: ALL, firstRowsMs: Math.round(firstRows), fullCountMs: Math.round(fullSync), coldFullCountMs: Math.round(coldFullCount),
  rendererRssMiB: Number(mib(rssAtFull.renderer)), chromiumRssMiB: Number(mib(rssAtFull.all)),
  rendererRssEndMiB: Number(mib(rssEnd.renderer)), wasmMiB: Number(mib(wasmAfter)),
  cpuQuiet, cpuUnderChanges,
}));
