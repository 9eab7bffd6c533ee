// Shell measurements (not a test; it asserts nothing about time): the time
// from a key pressed in the shell's terminal to its echo drawn, over the
// whole real path (the app's exec WebSocket, kubectl glass, kubectl proxy,
// the apiserver, kwok's kubelet API and the shell's pty, and back), for
// 200 keys typed one at a time; and the terminal's weight (the shell
// page's part of the wasm, fetched only when the page is opened).
//
//   node e2e/bench/shell.mjs <the app's URL, as make demo prints it>
//
// Needs KUBECTL and KUBECONFIG. It creates namespace bench-shell with one
// pod and deletes it at the end.
import { execFileSync } from 'node:child_process';
import { launchChromium, pct, sleep } from './lib.mjs';

const [url] = process.argv.slice(2);
if (!url) throw new Error('usage: node e2e/bench/shell.mjs <the app URL>');
const KEYS = 200;
const NS = 'bench-shell';
const env = (k) => process.env[k] ?? (() => { throw new Error(`${k} is not set`); })();
const kubectl = (...args) => execFileSync(env('KUBECTL'), ['--kubeconfig', env('KUBECONFIG'), ...args], { encoding: 'utf8' });

kubectl('delete', 'namespace', NS, '--ignore-not-found', '--wait=true');
kubectl('create', 'namespace', NS);
execFileSync(env('KUBECTL'), ['--kubeconfig', env('KUBECONFIG'), 'apply', '-f', '-'], {
  input: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'sh', namespace: NS },
    spec: { containers: [{ name: 'app', image: 'registry.example/bench/shell:1' }] } }),
});
for (let i = 0; kubectl('-n', NS, 'get', 'pod', 'sh', '-o', 'jsonpath={.status.phase}') !== 'Running'; i++) {
  if (i > 240) throw new Error('the pod is not Running after 60 s');
  await sleep(250);
}

const browser = await launchChromium();
const page = await browser.newPage();
const wasm = [];
page.on('response', async (r) => {
  if (r.url().endsWith('.wasm')) wasm.push({ url: r.url().split('/').pop(), bytes: Number(r.headers()['content-length'] ?? 0), encoding: r.headers()['content-encoding'] ?? 'none' });
});
await page.goto(`${url}#/`);
await page.getByTestId('nav-pods').waitFor();
const before = wasm.length;
await page.goto(`${url}#/exec/${NS}/sh/app`);
await page.locator('[data-testid="exec-state"][data-state="open"]').waitFor({ timeout: 30000 });
await page.waitForTimeout(500);
// The part fetched for the page (the first page's parts came before).
const shellParts = wasm.slice(before).filter((w) => /exec/.test(w.url));

// Each key: dispatched to the terminal's input, timed until the screen
// holds one more of it.
const times = await page.evaluate(async (n) => {
  const term = document.querySelector('[data-testid="terminal"]');
  const input = document.querySelector('[data-testid="terminal-input"]');
  const count = () => (term.textContent.match(/q/g) ?? []).length;
  const out = [];
  for (let i = 0; i < n; i++) {
    const want = count() + 1;
    const drawn = new Promise((resolve) => {
      const seen = new MutationObserver(() => {
        if (count() >= want) { seen.disconnect(); resolve(performance.now()); }
      });
      seen.observe(term, { subtree: true, childList: true, characterData: true });
    });
    const t0 = performance.now();
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'q', bubbles: true, cancelable: true }));
    out.push((await drawn) - t0);
    // The line is cleared every 60 keys, so it never wraps.
    if (i % 60 === 59) {
      input.dispatchEvent(new KeyboardEvent('keydown', { key: 'u', ctrlKey: true, bubbles: true, cancelable: true }));
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  return out;
}, KEYS);
console.log(`keystroke to echo, ${times.length} keys: p50 ${pct(times, 50).toFixed(1)} ms, p95 ${pct(times, 95).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms`);
for (const w of shellParts) console.log(`the shell page's part: ${w.url} ${w.bytes} B over the wire (${w.encoding})`);
await browser.close();
kubectl('delete', 'namespace', NS, '--wait=false');
