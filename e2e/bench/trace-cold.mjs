// Where a cold start's main-thread time goes (not a test; it asserts
// nothing about time): a fresh browser context (no HTTP cache) opens the
// overview under a Chromium trace, and the renderer's main thread is
// summed from the navigation to the server's version drawn, by kind of
// work, and listed task by task (each over 3 ms, with the events inside it
// that took longest). Run against a running app after `make demo`:
//
//   RUNS=3 node e2e/bench/trace-cold.mjs <app URL>
//
// REPEAT=1 traces a repeat visit instead: the overview is first opened in
// an untraced tab (until the pod count is drawn), then in a new tab of the
// same profile, traced, as e2e/bench/cold.mjs's repeat visit does (here
// the first tab is closed before the second opens).
//
// The trace is sampled by Chromium's own instrumentation, so the page runs
// somewhat slower than in e2e/bench/cold.mjs; compare its shares, not its
// totals, with that bench's times.
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from '../chromium.mjs';
import { noteFirstDraws } from './lib.mjs';

const [url] = process.argv.slice(2);
if (!url) throw new Error('usage: node e2e/bench/trace-cold.mjs <app URL>');
const RUNS = Number(process.env.RUNS ?? 3);
const REPEAT = process.env.REPEAT === '1';
// Each kind is one trace event name; they nest (a FunctionCall holds the
// lazy compilation it caused), so the kinds do not add up to the total.
const KINDS = {
  'wasm compiled lazily on first call (wasm.CompileLazy)': 'wasm.CompileLazy',
  'wasm streaming compilation on the main thread (v8.wasm.compileConsume)': 'v8.wasm.compileConsume',
  'script run (FunctionCall, timers included)': 'FunctionCall',
  'JS modules evaluated (EvaluateScript)': 'EvaluateScript',
  'layout (Layout)': 'Layout',
  'style (UpdateLayoutTree)': 'UpdateLayoutTree',
  'HTML parsed (ParseHTML)': 'ParseHTML',
  'CSS parsed (ParseAuthorStyleSheet)': 'ParseAuthorStyleSheet',
  'paint (Paint)': 'Paint',
};

async function once() {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_FLAGS] });
  try {
    const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
    await noteFirstDraws(context);
    if (REPEAT) {
      const first = await context.newPage();
      await first.goto(url);
      await first.waitForFunction(() => window.kubeglassPodsDrawn, null, { timeout: 60000 });
      // Closed, so that its renderer's work is not counted as the new tab's
      // if the two share a process.
      await first.close();
    }
    const page = await context.newPage();
    await page.goto('about:blank');
    await browser.startTracing(page, { categories: ['blink.user_timing', 'devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8', 'v8.wasm', 'blink', 'loading'] });
    await page.goto(url);
    await page.waitForFunction(() => window.kubeglassVersionDrawn, null, { timeout: 60000 });
    const drawn = await page.evaluate(() => window.kubeglassVersionDrawn);
    const events = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
    // The navigation's start, in the renderer that loads the page: the
    // page's main thread is that process's.
    const nav = events.filter((e) => e.name === 'navigationStart' && e.args?.data?.documentLoaderURL === url).pop();
    if (!nav) throw new Error('the trace has no navigationStart for the page');
    const start = nav.ts;
    const mainThreads = new Set(events
      .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && e.pid === nav.pid)
      .map((e) => `${e.pid}:${e.tid}`));
    const at = (ts) => (ts - start) / 1000;
    const main = events.filter((e) => e.ph === 'X' && mainThreads.has(`${e.pid}:${e.tid}`) && at(e.ts) >= -5 && at(e.ts) < drawn);
    const tasks = main.filter((e) => e.name === 'RunTask');
    const busy = tasks.reduce((a, t) => a + t.dur / 1000, 0);
    const kinds = Object.entries(KINDS).map(([label, name]) => [label, main.filter((e) => e.name === name).reduce((a, e) => a + e.dur / 1000, 0)]);
    const listing = tasks.filter((t) => t.dur > 3000).map((t) => {
      const inside = new Map();
      for (const e of main) {
        if (e !== t && e.name !== 'RunTask' && e.ts >= t.ts && e.ts + e.dur <= t.ts + t.dur) inside.set(e.name, (inside.get(e.name) ?? 0) + e.dur / 1000);
      }
      const top = [...inside].filter(([n]) => Object.values(KINDS).includes(n) || /^(v8|wasm)\./.test(n))
        .sort((a, b) => b[1] - a[1]).slice(0, 4).map(([n, ms]) => `${n} ${ms.toFixed(1)}`).join(', ');
      return `${at(t.ts).toFixed(0).padStart(6)} ms +${(t.dur / 1000).toFixed(1).padStart(5)} ms  ${top}`;
    });
    return { drawn, busy, kinds, listing };
  } finally {
    await browser.close();
  }
}

for (let i = 0; i < RUNS; i++) {
  const r = await once();
  console.log(`run ${i + 1}${REPEAT ? ' (a repeat visit)' : ''}: version drawn at ${r.drawn.toFixed(0)} ms; the main thread ran tasks for ${r.busy.toFixed(0)} ms of it`);
  for (const [label, ms] of r.kinds) console.log(`  ${ms.toFixed(0).padStart(5)} ms  ${label}`);
  console.log('  tasks over 3 ms (start since navigation, length, the events inside that took longest):');
  for (const line of r.listing) console.log(`  ${line}`);
}
