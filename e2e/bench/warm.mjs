// Warm start against cold (not a test; it asserts nothing about time): a
// namespace's pods table opened from a link, in a fresh Chromium profile
// each time (the app's files come over the loopback and compile alike both
// ways), first with nothing saved (every saved table forgotten), then
// after the launcher has saved that table. From the navigation: the first
// row drawn, the full count shown ("N of N"), and, warm, when the server
// confirmed the saved rows (the "resyncing" note gone). It also reports
// the saved table's size and the LISTs of pods the apiserver served
// during each visit (its own request metrics). Median of RUNS (default 3).
//
//   node e2e/bench/warm.mjs <API base under the token> <pods>
//
// It fills namespace `bench-ui` with N pods (reused when it already holds
// N, as bench/ui.mjs leaves it with BENCH_KEEP=1) and leaves it; it waits
// for the namespace to settle first unless BENCH_SETTLE=0.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from '../chromium.mjs';
import { fillNamespace, nodeBase, pct, settled } from './lib.mjs';

const [base, countArg = '10000'] = process.argv.slice(2);
if (!base) throw new Error('usage: node e2e/bench/warm.mjs <API base under the token> <pods>');
const N = Number(countArg);
const NS = 'bench-ui';
const RUNS = Number(process.env.RUNS ?? 3);
const api = (path, init = {}) => fetch(`${nodeBase(base)}${path}`, {
  ...init, headers: { 'content-type': 'application/json', ...(init.headers ?? {}) },
});
const nodes = (await (await api('/api/v1/nodes')).json()).items.map((n) => n.metadata.name)
  .filter((n) => n.startsWith('kwok-'));
if (nodes.length === 0) throw new Error('no kwok nodes: run `make demo` first');
const { count } = await fillNamespace(api, {
  ns: NS, resource: 'pods', n: N, keep: true,
  object: (name, i) => ({
    metadata: { name, labels: { app: 'bench', bucket: String(i % 10) } },
    spec: { nodeName: nodes[i % nodes.length], containers: [{ name: 'c', image: 'registry.example/bench:1' }] },
  }),
});
// BENCH_SETTLE=0 measures at once, with kwok still marking pods.
if (process.env.BENCH_SETTLE !== '0') await settled(base, api, NS, 'pods');
const total = await count();

/** The apiserver's LISTs of core pods so far (KUBECTL and KUBECONFIG name the cluster). */
function podLists() {
  if (!process.env.KUBECTL) return NaN;
  const text = execFileSync(process.env.KUBECTL, ['get', '--raw', '/metrics'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  let n = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('apiserver_request_total{') && line.includes('verb="LIST"') && line.includes('resource="pods"')
      && line.includes('group=""') && line.includes('subresource=""')) n += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return n;
}

const savedKeys = async () => (await api('/glass/saved')).json();
const tableKey = (keys) => keys.find((k) => k.startsWith(`table.api.v1.namespaces.${NS}.pods.`));

/**
 * One visit in a fresh profile: ms from navigation to the first row, the
 * full count, the confirmation; with `untilSaved`, the page stays open
 * until the launcher holds the table (saved within 5 s of its sync).
 */
async function visit({ untilSaved = false } = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'kubeglass-warm-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, viewport: { width: 1360, height: 900 }, args: [...CHROMIUM_FLAGS],
  });
  try {
    const page = context.pages()[0] ?? await context.newPage();
    await context.addInitScript(() => {
      new MutationObserver(() => {
        const now = performance.now();
        if (!window.firstRow && document.querySelector('[data-testid="resource-row"][data-key]')) window.firstRow = now;
        if (!window.resyncSeen && document.querySelector('[data-testid="resync-note"]')) window.resyncSeen = now;
        if (window.resyncSeen && !window.resyncGone && !document.querySelector('[data-testid="resync-note"]')) window.resyncGone = now;
        const m = /^(\d+) of (\d+)/.exec(document.querySelector('[data-testid="row-count"]')?.textContent ?? '');
        if (!window.fullCount && m && m[1] === m[2] && Number(m[1]) >= window.expected) window.fullCount = now;
      }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
    });
    await context.addInitScript((n) => { window.expected = n; }, total);
    const lists = podLists();
    await page.goto(`${base}/ui/#/r/pods?ns=${NS}`);
    await page.waitForFunction(() => window.fullCount && (!window.resyncSeen || window.resyncGone), null, { timeout: 300000, polling: 100 });
    const t = await page.evaluate(() => ({ first: window.firstRow, full: window.fullCount, confirmed: window.resyncGone ?? null }));
    const counted = podLists() - lists;
    for (let i = 0; untilSaved && i < 300 && !tableKey(await savedKeys()); i += 1) await page.waitForTimeout(100);
    return { ...t, lists: counted };
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

const med = (xs) => pct(xs, 50);
const show = (label, runs) => {
  const first = med(runs.map((r) => r.first));
  const full = med(runs.map((r) => r.full));
  const confirmed = runs.every((r) => r.confirmed !== null) ? `, confirmed by the server ${med(runs.map((r) => r.confirmed)).toFixed(0)} ms` : '';
  console.log(`${label}: first row ${first.toFixed(0)} ms, full count ${full.toFixed(0)} ms${confirmed}`
    + ` (median of ${runs.length}; LISTs of pods at the apiserver per visit: ${runs.map((r) => r.lists).join(', ')})`);
};

const cold = [];
for (let i = 0; i < RUNS; i += 1) {
  await api('/glass/saved', { method: 'DELETE' });
  // The last one stays until its table is saved, for the warm visits.
  cold.push(await visit({ untilSaved: i === RUNS - 1 }));
}
show(`cold, ${total} pods, nothing saved`, cold);
const key = tableKey(await savedKeys());
if (!key) throw new Error('the table was not saved');
const size = (await (await api(`/glass/saved/${key}`)).arrayBuffer()).byteLength;
console.log(`saved table: ${(size / 1e6).toFixed(1)} MB for ${total} rows (${(size / total).toFixed(0)} B a row)`);
const warm = [];
for (let i = 0; i < RUNS; i += 1) warm.push(await visit());
show(`warm, ${total} pods, the table saved`, warm);
