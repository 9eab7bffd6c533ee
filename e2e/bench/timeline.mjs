// The change timeline under load (not a test; it asserts nothing about
// time): ~200 changes/s for M minutes while #/changes is open, with the
// frame times of a 5 s sample each minute, the rows kept and dropped, the
// JavaScript heap and, at the end, the X-ray page's figures (rows, MiB of
// diffs, wasm memory). Run against a running app after `make demo`:
//
//   node e2e/bench/timeline.mjs http://127.0.0.1:8001/<token> 10
//
// It creates namespace `bench-timeline` with 200 ConfigMaps, patches their
// data at random (each patch a real change with a diff: the timeline's
// informers keep managedFields, and the demo's own churn goes on beside
// it), and deletes the namespace at the end.
import { frameSummary, keepAliveClient, launchChromium, pool, recordFrames, sleep, writeAtRate } from './lib.mjs';

const [base = process.env.KUBEGLASS_API ?? 'http://127.0.0.1:8001', minutesArg = '10'] = process.argv.slice(2);
const MINUTES = Number(minutesArg);
const NS = 'bench-timeline';
const MAPS = 200;
const client = keepAliveClient(base);

await client.call('POST', '/api/v1/namespaces', { metadata: { name: NS } });
await pool([...Array(MAPS).keys()], 16, (i) => client.call('POST', `/api/v1/namespaces/${NS}/configmaps`,
  { metadata: { name: `cm-${i}` }, data: { tick: '0' } }));
console.log(`created ${MAPS} ConfigMaps in ${NS}`);

const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
await page.goto(`${base}/ui/#/changes`);
await page.locator('[data-testid=changes-kind][data-kind=ConfigMap]').filter({ hasText: 'recording' })
  .waitFor({ state: 'attached', timeout: 60000 });

// One PATCH every 5 ms (200/s), up to 64 in flight, for MINUTES.
const t0 = Date.now();
const { stats: writes, done: patcher } = writeAtRate(MINUTES * 60000, (n) => client.call('PATCH',
  `/api/v1/namespaces/${NS}/configmaps/cm-${Math.floor(Math.random() * MAPS)}`,
  { data: { tick: String(n + 1) } }, 'application/merge-patch+json'));

const heap = () => page.evaluate(() => performance.memory?.usedJSHeapSize ?? NaN);
const counts = () => page.getByTestId('changes-count').innerText();
const sampler = (async () => {
  for (let minute = 1; minute <= MINUTES; minute++) {
    const wait = t0 + minute * 60000 - 5000 - Date.now();
    if (wait > 0) await sleep(wait);
    const frames = await recordFrames(page, 5000);
    const rate = writes.applied / ((Date.now() - t0) / 1000);
    console.log(`minute ${minute}: ${rate.toFixed(0)} changes/s applied; ${frameSummary(frames)}; `
      + `${await counts()}; JS heap ${((await heap()) / 1048576).toFixed(1)} MiB`);
  }
})();
await Promise.all([patcher, sampler]);

// The X-ray page's figures (the same tab: the recording goes on).
await page.goto(`${base}/ui/#/xray`);
await page.getByTestId('xray-timeline').waitFor();
console.log(`X-ray: timeline ${await page.getByTestId('xray-timeline').innerText()}`);
console.log(`X-ray: ${await page.getByTestId('xray-memory').innerText()}`);
console.log(`sent ${writes.sent}, applied ${writes.applied} in ${((Date.now() - t0) / 1000).toFixed(0)} s`);

await browser.close();
await client.call('DELETE', `/api/v1/namespaces/${NS}`);
client.close();
