// Many tabs of one table (not a test; it asserts nothing about time): a
// namespace of N pods, and its pods table opened in 1, 3 and 10 tabs, each
// waited for until it shows the full count. For each, the apiserver's
// watches of pods (its `apiserver_longrunning_requests` gauge, through the
// proxy) and Chromium's resident memory (every process, and the renderers
// alone), two ways: the tabs in one browser context, which share their
// watches (one origin: BroadcastChannel and Web Locks), and each tab in a
// context of its own, which cannot (separate storage partitions), as every
// tab was before the sharing. Then Chromium's CPU (every process) while
// 100 pods a second are patched for 10 s.
//
//   BENCH_KUBECONFIG=admin.kubeconfig BENCH_KUBECTL=kubectl \
//     node e2e/bench/tabs.mjs <api base under its token> [pods] [tab counts, e.g. 1,3,10]
import { execFileSync } from 'node:child_process';
import { chromiumCpuOver, chromiumProcesses, fillNamespace, keepAliveClient, launchChromium, nodeBase, releaseNamespace, settled, sleep, writeAtRate } from './lib.mjs';

const [base = process.env.KUBEGLASS_API ?? 'http://127.0.0.1:8001', countArg = '10000', tabsArg = '1,3,10'] = process.argv.slice(2);
const N = Number(countArg);
const NS = 'bench-tabs';
const KEEP = process.env.BENCH_KEEP === '1';
const api = (path, init = {}) => fetch(`${nodeBase(base)}${path}`, {
  ...init, headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
});
const nodes = (await (await api('/api/v1/nodes')).json()).items.map((n) => n.metadata.name).filter((n) => n.startsWith('kwok-'));
if (nodes.length === 0) throw new Error('no kwok nodes: run `make demo` first');
await fillNamespace(api, {
  ns: NS, resource: 'pods', n: N, keep: KEEP,
  object: (name, i) => ({
    metadata: { name, labels: { app: `web-${i % 20}` } },
    spec: { nodeName: nodes[i % nodes.length], containers: [{ name: 'c', image: 'registry.example/bench:1' }] },
  }),
});
await settled(base, api, NS, 'pods');

/**
 * The apiserver's open watches of pods, every client's: its metrics, read
 * with `kubectl get --raw /metrics` (BENCH_KUBECTL and BENCH_KUBECONFIG:
 * `kubectl glass` passes no /metrics through), else through the proxy.
 */
async function podWatches() {
  const text = process.env.BENCH_KUBECONFIG
    ? execFileSync(process.env.BENCH_KUBECTL ?? 'kubectl', ['--kubeconfig', process.env.BENCH_KUBECONFIG, 'get', '--raw', '/metrics'],
      { encoding: 'utf8', maxBuffer: 64 << 20 })
    : await (await api('/metrics')).text();
  if (!text.includes('apiserver_longrunning_requests')) throw new Error('no apiserver metrics: set BENCH_KUBECONFIG (and BENCH_KUBECTL)');
  let n = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('apiserver_longrunning_requests{') && line.includes('verb="WATCH"')
      && line.includes('resource="pods"') && line.includes('group=""') && line.includes('subresource=""')) {
      n += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return n;
}

/** Opens the table in `page` and waits until it shows all N pods. */
async function openTable(page) {
  await page.goto(`${base.replace(/\/$/, '')}/ui/#/r/pods?ns=${NS}`);
  await page.waitForFunction((n) => {
    const m = /^(\d+) of (\d+)/.exec(document.querySelector('[data-testid="row-count"]')?.textContent ?? '');
    return m && Number(m[2]) >= n;
  }, N, { timeout: 300000, polling: 200 });
}

const mib = (b) => (b / 1048576).toFixed(0);
const rows = [];
const browser = await launchChromium();
const quietBefore = await podWatches();
for (const tabs of tabsArg.split(',').map(Number)) {
  for (const shared of [true, false]) {
    const contexts = [];
    const one = shared ? await browser.newContext() : null;
    if (one) contexts.push(one);
    for (let i = 0; i < tabs; i++) {
      const context = one ?? await browser.newContext();
      if (!one) contexts.push(context);
      await openTable(await context.newPage());
    }
    // The usage columns' watches start once metrics answer; the followers
    // catch up at once. Three seconds of quiet before the reading.
    await sleep(3000);
    const watches = (await podWatches()) - quietBefore;
    const procs = await chromiumProcesses(browser);
    const all = procs.reduce((s, p) => s + p.rss, 0);
    const renderers = procs.filter((p) => p.type === 'renderer').reduce((s, p) => s + p.rss, 0);
    const client = keepAliveClient(base);
    const cpu = await chromiumCpuOver(browser, () => writeAtRate(10000, (n) => client.call('PATCH',
      `/api/v1/namespaces/${NS}/pods/p-${String(Math.floor(Math.random() * N)).padStart(6, '0')}`,
      { metadata: { labels: { tick: String(n + 1) } } }, 'application/merge-patch+json'), 100).done);
    client.close();
    const cpuPercent = Math.round(cpu.percentOfOneCore);
    rows.push({ tabs, shared, watches, allMiB: Number(mib(all)), renderersMiB: Number(mib(renderers)), cpuPercent });
    console.log(`${tabs} tab(s), ${shared ? 'one context (shared)' : 'a context each (not shared)'}: ${watches} watches of pods at the apiserver; Chromium ${mib(all)} MiB resident, renderers ${mib(renderers)} MiB; under 100 patches/s ${cpuPercent}% of a core`);
    for (const c of contexts) await c.close();
  }
}
await browser.close();
console.log('\n| tabs | watches of pods, shared | not shared | Chromium resident, shared | not shared | CPU under 100 patches/s, shared | not shared |\n|---:|---:|---:|---:|---:|---:|---:|');
for (const tabs of [...new Set(rows.map((r) => r.tabs))]) {
  const s = rows.find((r) => r.tabs === tabs && r.shared);
  const u = rows.find((r) => r.tabs === tabs && !r.shared);
  console.log(`| ${tabs} | ${s.watches} | ${u.watches} | ${s.allMiB} MiB | ${u.allMiB} MiB | ${s.cpuPercent}% | ${u.cpuPercent}% |`);
}
console.log(JSON.stringify({ bench: 'tabs', pods: N, rows }));
await releaseNamespace(api, NS, KEEP);
