// Log view measurements (not a test; it asserts nothing about time): a pod
// whose log holds 200,000 lines is opened with "all lines", then 1,000 new
// lines a second are written for 10 s while the view follows. Reports the
// time to the first line and to every line loaded, frame times while
// following, the JS heap and the wasm memory (from the X-ray page); and, as
// floors, `kubectl logs` of the same log to /dev/null through the same
// apiserver and kubelet API, and the browser's own WebSocket and fetch of it
// through the proxy with the lines only counted.
//
//   node e2e/bench/logs.mjs <api base, as `make demo` prints it without ui/> [lines]
//
// Needs KUBECTL, KUBECONFIG and KUBEGLASS_CLUSTER_DIR (the cluster whose
// hack/demo-logs.py writes the logs; `hack/cluster.sh env` prints them).
// BENCH_PROFILE=file takes a CPU profile of the load (page load to every
// line held) and prints the functions that cost most.
// It creates namespace bench-logs with one pod (profile "quiet": the
// writer writes only its first line) and deletes it at the end.
import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { frameSummary, launchChromium, profiled, recordFrames, sleep } from './lib.mjs';

const [base, countArg = '200000'] = process.argv.slice(2);
if (!base) throw new Error('usage: node e2e/bench/logs.mjs <api base> [lines]');
const N = Number(countArg);
const NS = 'bench-logs';
const POD = 'bench-logs';
const env = (k) => process.env[k] ?? (() => { throw new Error(`${k} is not set`); })();
const kubectl = (...args) => execFileSync(env('KUBECTL'), ['--kubeconfig', env('KUBECONFIG'), ...args], { encoding: 'utf8' });
const file = join(env('KUBEGLASS_CLUSTER_DIR'), 'pod-logs', NS, POD, 'app.log');
const cri = (text) => `${new Date().toISOString()} stdout F ${text}\n`;

kubectl('delete', 'namespace', NS, '--ignore-not-found', '--wait=true');
kubectl('create', 'namespace', NS);
execFileSync(env('KUBECTL'), ['--kubeconfig', env('KUBECONFIG'), 'apply', '-f', '-'], {
  input: JSON.stringify({
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: POD, namespace: NS, labels: { 'kubeglass.dev/logs': 'quiet' } },
    spec: { containers: [{ name: 'app', image: 'registry.example/bench/logs:1' }] },
  }),
});
const served = () => {
  try {
    return existsSync(file) && execFileSync(env('KUBECTL'), ['--kubeconfig', env('KUBECONFIG'), '-n', NS, 'logs', POD],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).includes('starting');
  } catch { return false; } // kwok has not read the Logs object yet
};
for (let i = 0; !served(); i++) {
  if (i > 240) throw new Error(`no log for ${NS}/${POD} after 60 s`);
  await sleep(250);
}
// 200,000 lines of ~100 bytes, written in blocks.
const t0 = Date.now();
for (let i = 0; i < N; i += 10000) {
  let block = '';
  for (let j = i; j < Math.min(N, i + 10000); j++) {
    block += cri(`line ${String(j).padStart(7, '0')} GET /api/items?page=${j % 97} 200 ${j % 90}ms user=${j % 1000} trace=${(j * 2654435761 % 4294967296).toString(16)}`);
  }
  appendFileSync(file, block);
}
const total = N + 1;
console.log(`wrote ${N} lines in ${Date.now() - t0} ms`);

// The floor: kubectl logs of the whole log, to /dev/null.
const floor = [];
for (let i = 0; i < 3; i++) {
  const t = Date.now();
  const r = spawnSync(env('KUBECTL'), ['--kubeconfig', env('KUBECONFIG'), '-n', NS, 'logs', POD, '--timestamps'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error('kubectl logs failed');
  floor.push(Date.now() - t);
}
console.log(`kubectl logs --timestamps > /dev/null: ${floor.join(', ')} ms`);

const browser = await launchChromium();
// What the browser's own WebSocket takes for the same followed log through
// the proxy, counting newlines in plain JS: the floor for the page.
const probe = await browser.newPage();
await probe.goto(`${base}/version`);
const socketFloor = [];
for (let i = 0; i < 3; i++) {
  socketFloor.push(await probe.evaluate(({ path, want }) => new Promise((resolve, reject) => {
    const t = performance.now();
    const ws = new WebSocket(`${location.origin}${path}`, ['binary.k8s.io']);
    ws.binaryType = 'arraybuffer';
    let lines = 0;
    ws.onmessage = (m) => {
      const b = new Uint8Array(m.data);
      for (let j = 0; j < b.length; j++) if (b[j] === 10) lines++;
      if (lines >= want) { ws.close(); resolve(Math.round(performance.now() - t)); }
    };
    ws.onerror = () => reject(new Error('the log socket failed'));
  }), { path: `${new URL(base).pathname}/api/v1/namespaces/${NS}/pods/${POD}/log?timestamps=true&follow=true`, want: total }));
}
const fetchFloor = [];
for (let i = 0; i < 3; i++) {
  fetchFloor.push(await probe.evaluate(async ({ path, want }) => {
    const t = performance.now();
    const r = await fetch(path);
    const reader = r.body.getReader();
    let lines = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (let j = 0; j < value.length; j++) if (value[j] === 10) lines++;
      if (lines >= want) { reader.cancel(); break; }
    }
    return Math.round(performance.now() - t);
  }, { path: `${new URL(base).pathname}/api/v1/namespaces/${NS}/pods/${POD}/log?timestamps=true&follow=true`, want: total }));
}
await probe.close();
console.log(`the browser's WebSocket through kubectl proxy, same log, newlines counted in JS: ${socketFloor.join(', ')} ms`);
console.log(`the browser's fetch of the same followed log: ${fetchFloor.join(', ')} ms`);
const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
// When the app opened the log's socket and when its first bytes came: the
// part of the time to first line that is the app starting.
let opened;
let firstBytes;
page.on('websocket', (ws) => {
  if (!ws.url().includes('/log?')) return;
  opened ??= Date.now() - t1;
  ws.on('framereceived', () => { firstBytes ??= Date.now() - t1; });
});
const t1 = Date.now();
let first;
await profiled(page, async () => {
  await page.goto(`${base}/ui/#/logs/${NS}/${POD}?tail=all`);
  await page.getByTestId('log-line').first().waitFor({ timeout: 120000 });
  first = Date.now() - t1;
  await page.waitForFunction((want) => {
    const n = Number.parseInt(document.querySelector('[data-testid=log-count]')?.textContent ?? '', 10);
    return n >= want;
  }, total, { timeout: 300000, polling: 50 });
});
const all = Date.now() - t1;
console.log(`page load to first line ${first} ms, to all ${total} lines ${all} ms (the log's socket opened at ${opened} ms, its first message at ${firstBytes} ms)`);
await page.waitForTimeout(1000);

// 1,000 lines a second for 10 s, 100 every 100 ms, while following.
const recording = recordFrames(page, 10000);
const writer = (async () => {
  const start = Date.now();
  let n = 0;
  while (Date.now() - start < 10000) {
    let block = '';
    for (let j = 0; j < 100; j++) block += cri(`follow ${n++} GET /cart 200 3ms`);
    appendFileSync(file, block);
    await sleep(Math.max(0, start + (n / 1000) * 1000 - Date.now()));
  }
  return n;
})();
const [frames, written] = await Promise.all([recording, writer]);
await page.waitForFunction((want) => Number.parseInt(document.querySelector('[data-testid=log-count]')?.textContent ?? '', 10) >= want,
  total + written, { timeout: 60000, polling: 50 });
console.log(`following ${written} new lines in 10 s: ${frameSummary(frames)}`);
const cdp = await page.context().newCDPSession(page);
const heap = await cdp.send('Runtime.getHeapUsage');
console.log(`JS heap ${(heap.usedSize / 1048576).toFixed(1)} MiB used of ${(heap.totalSize / 1048576).toFixed(1)} MiB`);
// The wasm memory, as the X-ray page of the same tab reports it (a hash
// change: the same module, its memory as the log view left it).
await page.evaluate(() => { location.hash = '#/xray'; });
console.log(`X-ray: ${await page.getByTestId('xray-memory').textContent({ timeout: 30000 })}`);
await browser.close();
kubectl('delete', 'namespace', NS, '--wait=false');
