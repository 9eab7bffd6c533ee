// Cold start of the first page (not a test; it asserts nothing about time):
// a fresh Chromium profile each run (no HTTP cache), the overview opened, and
// the time until the server version is drawn (the app downloaded, compiled,
// started, and its first request answered), with the bytes the page moved:
// from before the navigation (a fresh profile's renderer starting counts)
// and from the page's own navigation start (what the app owns).
// Each URL is measured RUNS times on the loopback as it is, and on a link
// shaped to 20 Mbit/s down, 5 up, 20 ms each way (Chromium's network
// emulation), where the size on the wire counts.
//
//   node e2e/bench/cold.mjs <app URL> [<app URL> …]
//
// e.g. the same build served by plain `kubectl proxy --www` (uncompressed)
// and by `kubectl glass` (brotli, application/wasm). For the median run it
// also prints each request's start and end since navigation: the gap
// between the wasm's arrival and the first API request is the wasm's
// compilation and the app's start. Then it opens the pod table from the
// overview and reports the time to its first row, and how long the page's
// part of the split wasm took to arrive. Last, a repeat visit: a new tab of
// the same profile opens the overview again, with the HTTP cache (and the
// compiled code V8 keeps beside it) warm from the first.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from '../chromium.mjs';
import { noteFirstDraws } from './lib.mjs';

const urls = process.argv.slice(2);
if (urls.length === 0) throw new Error('usage: node e2e/bench/cold.mjs <app URL> [<app URL> …]');
const RUNS = Number(process.env.RUNS ?? 5);
const LINKS = {
  loopback: null,
  '20 Mbit/s, 40 ms RTT': { offline: false, latency: 40, downloadThroughput: 20e6 / 8, uploadThroughput: 5e6 / 8 },
};

async function once(url, link) {
  const profile = mkdtempSync(join(tmpdir(), 'kubeglass-cold-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, viewport: { width: 1360, height: 900 }, args: [...CHROMIUM_FLAGS],
  });
  try {
    const page = context.pages()[0] ?? await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    if (link) await cdp.send('Network.emulateNetworkConditions', link);
    let bytes = 0;
    cdp.on('Network.loadingFinished', (e) => { bytes += e.encodedDataLength; });
    // When the version and the pod count first show, in the page's own
    // clock: the time the app owns, without the browser starting a fresh
    // profile's renderer.
    await noteFirstDraws(context);
    const start = Date.now();
    await page.goto(url);
    await page.getByTestId('server-version').waitFor({ timeout: 60000 });
    const ms = Date.now() - start;
    const drawn = await page.waitForFunction(() => window.kubeglassVersionDrawn).then((h) => h.jsonValue());
    const podsDrawn = await page.waitForFunction(() => window.kubeglassPodsDrawn, null, { timeout: 60000 }).then((h) => h.jsonValue());
    const wasm = await page.evaluate(() => performance.getEntriesByType('resource')
      .filter((r) => r.name.endsWith('.wasm'))
      .map((r) => ({ transfer: r.transferSize, body: r.decodedBodySize }))[0]);
    // Where the time went: each request's start and end since navigation,
    // and when the version was on screen (the test's own wait adds polling).
    const waterfall = await page.evaluate(() => {
      const short = (u) => new URL(u).pathname.split('/').filter(Boolean).slice(-1)[0]?.replace(/-[0-9a-f]{16}/, '') ?? '/';
      const nav = performance.getEntriesByType('navigation')[0];
      const all = performance.getEntriesByType('resource').filter((r) => !r.name.includes('favicon'));
      // The other pages' parts, fetched in the background: one entry.
      const isPart = (r) => /\/(split|chunk)_[^/]*\.wasm$/.test(r.name);
      const parts = all.filter(isPart);
      const partsLine = parts.length === 0 ? [] : [`other pages' parts (${parts.length} files) `
        + `${Math.min(...parts.map((r) => r.startTime)).toFixed(0)}–${Math.max(...parts.map((r) => r.responseEnd)).toFixed(0)}`];
      return [
        `page ${nav.responseEnd.toFixed(0)}`,
        ...all.filter((r) => !isPart(r)).map((r) => `${short(r.name)} ${r.startTime.toFixed(0)}–${r.responseEnd.toFixed(0)}`),
        ...partsLine,
        `version drawn ${window.kubeglassVersionDrawn.toFixed(0)}`,
        `pod count drawn ${window.kubeglassPodsDrawn.toFixed(0)}`,
      ].join(', ');
    });
    // Then a second page, as a person opens one: the pod table. With the
    // wasm split by page its part is fetched now, so this is what the split
    // costs a page's first opening: from the route's change to the first
    // row, and to the last of the part's files in.
    const second = await page.evaluate(() => new Promise((resolve) => {
      const t0 = performance.now();
      const done = () => {
        const parts = performance.getEntriesByType('resource')
          .filter((r) => /\/(split|chunk)_[^/]*\.wasm$/.test(r.name) && r.startTime >= t0);
        resolve({
          row: Math.round(performance.now() - t0),
          files: parts.length,
          partIn: Math.round(Math.max(0, ...parts.map((r) => r.responseEnd)) - t0),
          transfer: parts.reduce((a, r) => a + r.transferSize, 0),
        });
      };
      new MutationObserver((_, observer) => {
        if (document.querySelector('[data-testid="resource-row"]')) {
          observer.disconnect();
          done();
        }
      }).observe(document, { subtree: true, childList: true });
      location.hash = '#/r/pods';
    }));
    const repeat = await repeatVisit(context, url, link);
    return { ms, drawn: Math.round(drawn), pods: Math.round(podsDrawn), bytes, wasm, waterfall, second, repeat };
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

// The overview opened again in a new tab of the same profile: the time from
// its navigation to the version drawn, the bytes it moved, and the bytes of
// wasm that came over the network rather than from the cache.
async function repeatVisit(context, url, link) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  if (link) await cdp.send('Network.emulateNetworkConditions', link);
  let bytes = 0;
  cdp.on('Network.loadingFinished', (e) => { bytes += e.encodedDataLength; });
  await page.goto(url);
  await page.getByTestId('server-version').waitFor({ timeout: 60000 });
  const drawn = await page.waitForFunction(() => window.kubeglassVersionDrawn).then((h) => h.jsonValue());
  const pods = await page.waitForFunction(() => window.kubeglassPodsDrawn, null, { timeout: 60000 }).then((h) => h.jsonValue());
  const wasmOverNetwork = await page.evaluate(() => performance.getEntriesByType('resource')
    .filter((r) => r.name.endsWith('.wasm') && r.startTime < window.kubeglassVersionDrawn)
    .reduce((a, r) => a + r.transferSize, 0));
  await page.close();
  return { drawn: Math.round(drawn), pods: Math.round(pods), bytes, wasmOverNetwork };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const url of urls) {
  const where = new URL(url);
  for (const [name, link] of Object.entries(LINKS)) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await once(url, link));
    const w = runs[0].wasm ?? {};
    console.log(`${where.host} · ${name}: first page (server version drawn) median ${median(runs.map((r) => r.ms))} ms `
      + `(runs: ${runs.map((r) => r.ms).join(', ')}), from the page's navigation ${median(runs.map((r) => r.drawn))} ms `
      + `(${runs.map((r) => r.drawn).join(', ')}); ${Math.round(median(runs.map((r) => r.bytes)) / 1024)} KiB moved; `
      + `wasm ${Math.round((w.transfer ?? 0) / 1024)} KiB on the wire for ${Math.round((w.body ?? 0) / 1024)} KiB`);
    console.log(`  the pod count (the first list's data) drawn median ${median(runs.map((r) => r.pods))} ms from the page's navigation `
      + `(${runs.map((r) => r.pods).join(', ')})`);
    const mid = [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)];
    console.log(`  the median run, ms since navigation: ${mid.waterfall}`);
    const opened = [...runs].sort((a, b) => a.second.row - b.second.row)[Math.floor(runs.length / 2)].second;
    console.log(`  then the pod table, its first opening: first row median ${median(runs.map((r) => r.second.row))} ms after the route changed `
      + `(runs: ${runs.map((r) => r.second.row).join(', ')}); in the median run `
      + (opened.files === 0 ? 'no part file was asked for after the route changed (the background fetch had it, or had it on its way)'
        : `its part was ${opened.files} files, ${Math.round(opened.transfer / 1024)} KiB on the wire, all in at ${opened.partIn} ms`));
    console.log(`  then a repeat visit (a new tab, same profile): version drawn median ${median(runs.map((r) => r.repeat.drawn))} ms from its navigation `
      + `(runs: ${runs.map((r) => r.repeat.drawn).join(', ')}), the pod count ${median(runs.map((r) => r.repeat.pods))} ms; ${Math.round(median(runs.map((r) => r.repeat.bytes)) / 1024)} KiB moved, `
      + `of which wasm over the network ${Math.round(median(runs.map((r) => r.repeat.wasmOverNetwork)) / 1024)} KiB`);
  }
}
