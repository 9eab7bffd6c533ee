// Helpers shared by the UI measurement scripts (bench/ui.mjs,
// bench/events.mjs): Debian's Chromium, a keep-alive API client, a worker
// pool, and frame-time recording and percentiles.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from '../chromium.mjs';
import { nodeBase } from '../lib.mjs';

export { nodeBase };

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The `p`th percentile of `xs`. */
export const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

/**
 * "N frames, p50 …, p95 …, max …, K late" for frame intervals in ms; a late
 * frame is one that took over 25 ms, so at 60 Hz at least one was missed
 * (intervals jitter by a few tenths of a ms around 16.7).
 */
export const frameSummary = (frames) => `${frames.length} frames, p50 ${pct(frames, 50).toFixed(1)} ms, `
  + `p95 ${pct(frames, 95).toFixed(1)} ms, max ${Math.max(...frames).toFixed(1)} ms, `
  + `${frames.filter((f) => f > 25).length} late (over 25 ms)`;

/** Runs `fn` over `items`, `concurrency` at a time. */
export async function pool(items, concurrency, fn) {
  let i = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (i < items.length) await fn(items[i++]);
  }));
}

/**
 * Requests to `base` over keep-alive node:http (fetch costs this two-core
 * machine too much CPU to reach 200 writes/s). `call` resolves to
 * `{ status, text }`; a body is sent as JSON with content type `type`.
 */
export function keepAliveClient(base) {
  const target = new URL(nodeBase(base));
  // The API base may carry the capability token as its path: `http://127.0.0.1:8001/<token>`.
  const prefix = target.pathname.replace(/\/$/, '');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const call = (method, path, body, type = 'application/json') => new Promise((resolve, reject) => {
    const data = body === undefined ? '' : JSON.stringify(body);
    const req = http.request({
      host: target.hostname, port: target.port, path: prefix + path, method, agent,
      headers: { 'content-type': type, 'content-length': Buffer.byteLength(data) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, text }));
    });
    req.on('error', reject);
    req.end(data);
  });
  return { call, close: () => agent.destroy() };
}

/**
 * Writes for `ms` at `perSecond` (one request every 1000/perSecond ms, at
 * most 64 in flight): `write(n)`, n from 0, returns the request's promise
 * of `{ status }`. `stats` ({ sent, applied }, applied: status < 300) can be
 * read on the way; `done` resolves to it once the last write is answered.
 */
export function writeAtRate(ms, write, perSecond = 200) {
  const t = Date.now();
  const stats = { sent: 0, applied: 0 };
  const done = (async () => {
    const inflight = new Set();
    while (Date.now() - t < ms) {
      if (inflight.size < 64 && stats.sent < ((Date.now() - t) * perSecond) / 1000) {
        const p = write(stats.sent++)
          .then((r) => { if (r.status < 300) stats.applied++; })
          .finally(() => inflight.delete(p));
        inflight.add(p);
      } else {
        await sleep(1);
      }
    }
    await Promise.all(inflight);
    return stats;
  })();
  return { stats, done };
}

/** Debian's headless Chromium with the flags the tests use. */
export function launchChromium() {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [...CHROMIUM_FLAGS],
  });
}

/**
 * Every process of `browser` (Chromium's own list, through CDP's
 * SystemInfo): its type (`browser`, `renderer`, `gpu`, `utility`…), pid,
 * CPU time so far in seconds, and resident memory in bytes (read from
 * /proc; 0 for a process that has just ended).
 */
export async function chromiumProcesses(browser) {
  const cdp = await browser.newBrowserCDPSession();
  const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
  await cdp.detach();
  return processInfo.map(({ type, id, cpuTime }) => {
    let rss = 0;
    try {
      rss = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${id}/status`, 'utf8'))?.[1] ?? 0) * 1024;
    } catch { /* ended */ }
    return { type, pid: id, cpuSeconds: cpuTime, rss };
  });
}

/**
 * The CPU `browser` spent over `during()` (every process, and its
 * renderers alone), in seconds and as a share of one core.
 */
export async function chromiumCpuOver(browser, during) {
  const sum = (ps, f = () => true) => ps.filter(f).reduce((n, p) => n + p.cpuSeconds, 0);
  const before = await chromiumProcesses(browser);
  const t0 = performance.now();
  const extra = await during();
  const seconds = (performance.now() - t0) / 1000;
  const after = await chromiumProcesses(browser);
  // A process that started meanwhile counts from zero.
  const spent = (f) => sum(after, f) - sum(before.filter((b) => after.some((a) => a.pid === b.pid)), f);
  const all = spent(() => true);
  const renderer = spent((p) => p.type === 'renderer');
  return { seconds, cpuSeconds: all, percentOfOneCore: (100 * all) / seconds, rendererPercentOfOneCore: (100 * renderer) / seconds, ...extra };
}

/** `requestAnimationFrame` intervals in `page` for `ms` milliseconds. */
export function recordFrames(page, ms) {
  return page.evaluate(async (ms) => {
    const deltas = [];
    let last = performance.now();
    const end = last + ms;
    await new Promise((resolve) => {
      const step = (now) => {
        deltas.push(now - last);
        last = now;
        if (now < end) requestAnimationFrame(step); else resolve();
      };
      requestAnimationFrame(step);
    });
    return deltas.slice(1);
  }, ms);
}

/**
 * With BENCH_PROFILE set, a CPU profile of `page` while `during` runs: the
 * functions that took the most self time are printed (and the whole
 * profile written to the file BENCH_PROFILE names, for DevTools).
 */
export async function profiled(page, during) {
  const file = process.env.BENCH_PROFILE;
  if (!file) return during();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  const result = await during();
  const { profile } = await cdp.send('Profiler.stop');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(file, JSON.stringify(profile));
  const self = new Map();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = profile.timeDeltas;
  profile.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame;
    const name = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber}`;
    self.set(name, (self.get(name) ?? 0) + (dt[i] ?? 0) / 1000);
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.log(`CPU profile (${(total / 1000).toFixed(1)} s sampled, written to ${file}); most self time:`);
  for (const [name, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`  ${ms.toFixed(0).padStart(7)} ms  ${name}`);
  }
  return result;
}

/**
 * With BENCH_TRACE set, a Chromium trace of `page`'s renderer while `during`
 * runs (written to the file BENCH_TRACE names, for DevTools' Performance
 * panel), and the main thread's time by kind of work: script, style,
 * layout, paint, garbage collection. That is where the CPU profile's
 * "(program)" goes.
 */
export async function traced(browser, page, during) {
  const file = process.env.BENCH_TRACE;
  if (!file) return during();
  await browser.startTracing(page, {
    path: file,
    // invalidationTracking: which node made each layer repaint, and why.
    categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-devtools.timeline.invalidationTracking', 'v8'],
  });
  const result = await during();
  const trace = JSON.parse((await browser.stopTracing()).toString());
  const events = trace.traceEvents ?? trace;
  const main = new Set(events
    .filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain')
    .map((e) => `${e.pid}:${e.tid}`));
  const kinds = {
    'script (FunctionCall, animation frame, timers, microtasks)': ['FunctionCall', 'FireAnimationFrame', 'TimerFire', 'RunMicrotasks', 'EventDispatch'],
    'style (UpdateLayoutTree)': ['UpdateLayoutTree', 'RecalculateStyles'],
    'layout': ['Layout'],
    'pre-paint, paint, layerize, commit': ['PrePaint', 'Paint', 'Layerize', 'Commit', 'UpdateLayer', 'PaintImage'],
    'garbage collection': ['MinorGC', 'MajorGC', 'V8.GC_SCAVENGER', 'V8.GC_MARK_COMPACTOR'],
    'whole tasks (RunTask)': ['RunTask', 'ThreadControllerImpl::RunTask'],
  };
  const totals = new Map(Object.keys(kinds).map((k) => [k, { ms: 0, n: 0 }]));
  for (const e of events) {
    if (e.ph !== 'X' || !main.has(`${e.pid}:${e.tid}`)) continue;
    for (const [kind, names] of Object.entries(kinds)) {
      if (names.includes(e.name)) {
        const t = totals.get(kind);
        t.ms += (e.dur ?? 0) / 1000;
        t.n += 1;
      }
    }
  }
  console.log(`trace (written to ${file}); the renderer's main thread, by kind of work:`);
  for (const [kind, { ms, n }] of totals) {
    console.log(`  ${ms.toFixed(0).padStart(7)} ms in ${String(n).padStart(6)} events  ${kind}`);
  }
  // What invalidated paint and layout, by node and reason, most often first.
  const invalidations = new Map();
  for (const e of events) {
    const kind = /^(Paint|Layout)InvalidationTracking$/.exec(e.name)?.[1];
    if (!kind) continue;
    const d = e.args?.data ?? {};
    const key = `${kind}: ${d.nodeName ?? '?'}, ${d.reason ?? '?'}`;
    invalidations.set(key, (invalidations.get(key) ?? 0) + 1);
  }
  const top = [...invalidations].sort((a, b) => b[1] - a[1]).slice(0, 12);
  if (top.length > 0) console.log('  invalidations, most often first:');
  for (const [key, n] of top) console.log(`  ${String(n).padStart(7)}  ${key}`);
  return result;
}

/**
 * Fills namespace `ns` with `n` objects of `resource` (pods or configmaps),
 * named p-000000…, each made by `object(name, i)`; with `keep`, reuses the
 * namespace when it already holds `n` (plus `extra` it makes itself).
 * Returns `count()`, how many the namespace holds.
 */
export async function fillNamespace(api, { ns, resource, n, keep, extra = 0, object }) {
  const count = async () => {
    const page = await (await api(`/api/v1/namespaces/${ns}/${resource}?limit=1`)).json();
    return page.items ? page.items.length + (page.metadata.remainingItemCount ?? 0) : 0;
  };
  const have = (await count()) - extra;
  const phase = (await (await api(`/api/v1/namespaces/${ns}`)).json()).status?.phase;
  if (keep && have === n && phase === 'Active') {
    console.log(`reusing the ${n} ${resource} in ${ns}`);
    return { count };
  }
  if (have > 0) await deleteAtOnce(api, ns, resource);
  await api(`/api/v1/namespaces/${ns}`, { method: 'DELETE' });
  for (;;) { if ((await api(`/api/v1/namespaces/${ns}`)).status === 404) break; await sleep(500); }
  await api('/api/v1/namespaces', { method: 'POST', body: JSON.stringify({ metadata: { name: ns } }) });
  const t = Date.now();
  await pool([...Array(n).keys()], 24, async (i) => {
    const name = `p-${String(i).padStart(6, '0')}`;
    const r = await api(`/api/v1/namespaces/${ns}/${resource}`, { method: 'POST', body: JSON.stringify(object(name, i)) });
    if (!r.ok) throw new Error(`create ${resource} ${i}: ${r.status} ${await r.text()}`);
    if (i % 5000 === 0) console.log(`  created ${i}`);
  });
  console.log(`created ${n} ${resource} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  return { count };
}

/**
 * Waits until `ns`'s `resource` is quiet (under 10 watch events in 3 s,
 * twice): kwok marks new pods Running, and the scheduler and controllers
 * react, for minutes after they are created.
 */
export async function settled(base, api, ns, resource) {
  const changesIn = async (ms) => {
    const rv = (await (await api(`/api/v1/namespaces/${ns}/${resource}?limit=1`)).json()).metadata.resourceVersion;
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), ms);
    let lines = 0;
    try {
      const r = await fetch(`${nodeBase(base)}/api/v1/namespaces/${ns}/${resource}?watch=1&resourceVersion=${rv}`, { signal: ctl.signal });
      for await (const chunk of r.body) lines += [...chunk].filter((b) => b === 10).length;
    } catch { /* aborted at the end of the window */ }
    clearTimeout(timer);
    return lines;
  };
  for (let quiet = 0; quiet < 2;) {
    const n = await changesIn(3000);
    quiet = n < 10 ? quiet + 1 : 0;
    if (n >= 10) console.log(`  waiting for the cluster to settle: ${n} changes in 3 s`);
  }
}

/**
 * Deletes every `resource` of `ns` in one request with no grace (kwok
 * ending thousands of pods one by one would take the cores from whatever
 * runs next). `api(path, init)` sends JSON under the capability URL.
 */
export function deleteAtOnce(api, ns, resource = 'pods') {
  return api(`/api/v1/namespaces/${ns}/${resource}`, { method: 'DELETE', body: JSON.stringify({ gracePeriodSeconds: 0 }) });
}

/** Deletes namespace `ns` the bench filled, or with `keep` says it is kept. */
export async function releaseNamespace(api, ns, keep) {
  if (keep) {
    console.log(`namespace ${ns} kept (BENCH_KEEP=1)`);
  } else {
    await deleteAtOnce(api, ns);
    await api(`/api/v1/namespaces/${ns}`, { method: 'DELETE' });
    console.log(`namespace ${ns} deleted`);
  }
}

/**
 * Notes, in each page's own clock (ms since its navigation), when the
 * overview first shows the server's version (`window.kubeglassVersionDrawn`)
 * and its pod count, the first list's data (`window.kubeglassPodsDrawn`),
 * in every page `context` opens from now on.
 */
export async function noteFirstDraws(context) {
  await context.addInitScript(() => {
    new MutationObserver((_, observer) => {
      const v = document.querySelector('[data-testid="server-version"]');
      if (v?.textContent?.trim() && !window.kubeglassVersionDrawn) window.kubeglassVersionDrawn = performance.now();
      const pods = document.querySelector('[data-testid="pod-count"]');
      if (/^\d+$/.test(pods?.textContent?.trim() ?? '') && !window.kubeglassPodsDrawn) window.kubeglassPodsDrawn = performance.now();
      if (window.kubeglassVersionDrawn && window.kubeglassPodsDrawn) observer.disconnect();
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
}
