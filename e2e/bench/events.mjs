// Event stream measurements with many events (not a test; it asserts
// nothing about time): time from page load to the first row and to every
// event held, frame times while ~100 new and ~100 changed events arrive per
// second, and the stream's frame queue as the X-ray page reports it (mean
// and slowest apply of a frame's changes). Run against a running app after
// `make demo`:
//
//   node e2e/bench/events.mjs http://127.0.0.1:8001 10000
//
// It creates namespace `bench-events` with N Events (20 reasons, one in ten
// a Warning, last seen over the past half hour), measures, and deletes the
// namespace. BENCH_KEEP=1 keeps it and reuses it when it holds N events.
// BENCH_FILTER=text types `text` into the stream's filter before the write
// phase (every frame then filters all events). BENCH_PROFILE=file takes a
// CPU profile of the write phase and prints the functions that cost most;
// BENCH_TRACE=file takes a Chromium trace of it and prints the main
// thread's time by kind (script, style, layout, paint, GC).
import { frameSummary, keepAliveClient, launchChromium, pool, profiled, recordFrames, sleep, traced, writeAtRate } from './lib.mjs';

// base: the API under its capability token, as `make demo` prints it without the trailing `ui/`.
const [base = process.env.KUBEGLASS_API ?? 'http://127.0.0.1:8001', countArg = '10000'] = process.argv.slice(2);
const N = Number(countArg);
const NS = 'bench-events';
const KEEP = process.env.BENCH_KEEP === '1';
const client = keepAliveClient(base);
const { call } = client;
const json = async (path) => JSON.parse((await call('GET', path)).text);

const REASONS = Array.from({ length: 20 }, (_, i) => `BenchReason${i}`);
const event = (i, name, ago, labels = {}) => {
  const at = new Date(Date.now() - ago * 1000).toISOString().replace(/\.\d+Z$/, 'Z');
  return {
    apiVersion: 'v1', kind: 'Event',
    metadata: { name, namespace: NS, labels },
    involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: `obj-${i % 500}` },
    reason: REASONS[i % REASONS.length], type: i % 10 === 0 ? 'Warning' : 'Normal',
    message: `bench event ${i}`, source: { component: 'bench-events' },
    firstTimestamp: at, lastTimestamp: at, count: 1,
  };
};
const countIn = async (path) => {
  const page = await json(`${path}?limit=1`);
  return page.items.length + (page.metadata.remainingItemCount ?? 0);
};

const have = await countIn(`/api/v1/namespaces/${NS}/events`).catch(() => 0);
const phase = (await json(`/api/v1/namespaces/${NS}`)).status?.phase;
if (KEEP && have === N && phase === 'Active') {
  console.log(`reusing the ${N} events in ${NS}`);
} else {
  await call('DELETE', `/api/v1/namespaces/${NS}`);
  while ((await call('GET', `/api/v1/namespaces/${NS}`)).status !== 404) await sleep(500);
  await call('POST', '/api/v1/namespaces', { metadata: { name: NS } });
  const t = Date.now();
  await pool([...Array(N).keys()], 32, async (i) => {
    const r = await call('POST', `/api/v1/namespaces/${NS}/events`, event(i, `e-${String(i).padStart(6, '0')}`, i % 1800));
    if (r.status !== 201) throw new Error(`create event ${i}: ${r.status} ${r.text}`);
  });
  console.log(`created ${N} events in ${((Date.now() - t) / 1000).toFixed(1)} s`);
}
// Everything the stream will hold: events of every namespace.
const total = await countIn('/api/v1/events');

const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
const t0 = Date.now();
await page.goto(`${base}/ui/#/events`);
await page.getByTestId('event-row').first().waitFor({ timeout: 120000 });
const firstRow = Date.now() - t0;
const heldAtLeast = (n) => page.waitForFunction((want) => {
  const m = /^(\d+) events/.exec(document.querySelector('[data-testid="events-per-minute"]')?.textContent ?? '');
  return m && Number(m[1]) >= want;
}, n, { timeout: 300000, polling: 50 });
await heldAtLeast(total);
const allHeld = Date.now() - t0;
console.log(`page load to first row ${firstRow} ms, to all ${total} events held ${allHeld} ms`);
if (process.env.BENCH_FILTER) {
  await page.getByTestId('event-filter').fill(process.env.BENCH_FILTER);
  console.log(`filtered by "${process.env.BENCH_FILTER}"`);
}
await page.waitForTimeout(2000);

// Frame times for 10 s while new events arrive and existing ones change
// (count and last seen, as a repeating event does), ~100/s each.
const recording = recordFrames(page, 10000);
const t = Date.now();
const { stats: writes, done: writer } = writeAtRate(10000, (i) => {
  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  return i % 2 === 0
    ? call('POST', `/api/v1/namespaces/${NS}/events`, event(i, `new-${t}-${i}`, 0, { bench: 'new' }))
    : call('PATCH', `/api/v1/namespaces/${NS}/events/e-${String(Math.floor(Math.random() * N)).padStart(6, '0')}`,
      { count: 2 + i, lastTimestamp: now }, 'application/merge-patch+json');
});
const [frames] = await traced(browser, page, () => profiled(page, () => Promise.all([recording, writer])));
const rate = writes.applied / ((Date.now() - t) / 1000);
console.log(`under ${rate.toFixed(0)} event writes/s: ${frameSummary(frames)}`);

// The stream's frame queue, summed once its view closed.
await page.evaluate(() => { location.hash = '#/xray'; });
const queues = page.getByTestId('xray-queues');
await queues.waitFor({ timeout: 30000 });
const row = await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="xray-queues"] tr')]
  .map((r) => r.innerText).find((r) => r.includes('event-rows')), null, { timeout: 30000 });
const header = await page.locator('[data-testid="xray-queues"] thead tr').innerText();
console.log(`X-ray, the stream's frame queue:\n  ${header.replace(/\s+/g, ' | ')}\n  ${(await row.jsonValue()).replace(/\s+/g, ' ').replace(/\t/g, ' | ')}`);

await browser.close();
client.close();
if (KEEP) {
  // Without the events written while measuring, so the next run reuses it.
  await call('DELETE', `/api/v1/namespaces/${NS}/events?labelSelector=bench%3Dnew`);
  console.log(`namespace ${NS} kept (BENCH_KEEP=1)`);
} else {
  await call('DELETE', `/api/v1/namespaces/${NS}`);
}
