import { chromium } from 'playwright-core';
import fs from 'node:fs';
const [base, ns, n] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
await page.goto(`${base}/ui/#/r/pods?ns=${ns}`);
await page.waitForFunction((n) => (document.querySelector('[data-testid="row-count"]')?.textContent ?? '').startsWith(`${n} of ${n}`), Number(n), { timeout: 120000, polling: 100 });
await page.waitForTimeout(1000);
await browser.startTracing(page, { path: '/tmp/probe/trace3.json', categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'disabled-by-default-v8.cpu_profiler'] });
const r = await page.evaluate(async () => {
  const body = document.querySelector('[data-testid="table-body"]');
  const d = []; let last = performance.now(); const end = last + 4000;
  await new Promise((res) => { const step = (now) => { d.push(now - last); last = now; body.scrollTop += 240; if (now < end) requestAnimationFrame(step); else res(); }; requestAnimationFrame(step); });
  const s = d.slice(1).sort((a, b) => a - b); return { p50: s[Math.floor(s.length * .5)], p95: s[Math.floor(s.length * .95)], n: s.length };
});
console.log(JSON.stringify(r));
await browser.stopTracing();
await browser.close();
const tr = JSON.parse(fs.readFileSync('/tmp/probe/trace3.json'));
const all = tr.traceEvents ?? tr;
const ev = all.filter((e) => e.ph === 'X' && e.dur);
const sum = {}; for (const e of ev) sum[e.name] = (sum[e.name] ?? 0) + e.dur / 1000;
console.log(Object.entries(sum).sort((a, b) => b[1] - a[1]).slice(0, 14).map(([k, v]) => `${k}: ${v.toFixed(0)} ms`).join('\n'));
// CPU profile: self time by function
const nodes = new Map(); const self = new Map();
for (const e of all) {
  if (e.name === 'ProfileChunk' && e.args?.data?.cpuProfile) {
    const cp = e.args.data.cpuProfile; for (const nd of cp.nodes ?? []) nodes.set(nd.id, nd.callFrame);
    const samples = cp.samples ?? []; const deltas = e.args.data.timeDeltas ?? [];
    samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (deltas[i] ?? 0) / 1000));
  }
}
const byFn = {}; for (const [id, ms] of self) { const f = nodes.get(id); const k = f ? `${f.functionName || '(anon)'} ${f.url?.split('/').pop() ?? ''}` : String(id); byFn[k] = (byFn[k] ?? 0) + ms; }
console.log(Object.entries(byFn).sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${v.toFixed(0)} ms  ${k}`).join('\n'));
