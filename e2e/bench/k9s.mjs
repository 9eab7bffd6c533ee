// k9s, the peer (issue #43), against the same cluster as the app's table
// bench (not a test; it asserts nothing about time). k9s, built from its
// Go module at the version hack/build-k9s.sh pins (which this runs: it
// returns the cached binary at once; K9S=path runs that binary instead), in a pseudo-terminal of 200×50
// (e2e/bench/pty-run.py, Python's stdlib pty), all namespaces, the pods
// view, read-only, with a fresh config and state folder (no user config;
// the check for a newer k9s on GitHub turned off):
//
//   node e2e/bench/k9s.mjs http://127.0.0.1:8001/<token> [N]
//
// The base is the API under its capability token, as for e2e/bench/ui.mjs;
// the bench uses it only to count the pods and to write the changes. k9s
// itself talks to the apiserver as a person's k9s does, through the
// kubeconfig: K9S_KUBECONFIG, else the demo cluster's admin.kubeconfig;
// K9S_CONTEXT names a context (else the kubeconfig's current one).
//
// It measures:
//
// - time from spawning k9s to its pods view's title showing the full
//   count. "Shown" is read off the screen: the bytes k9s writes are
//   applied to a 200×50 grid (e2e/bench/screen.mjs), and after each chunk
//   the grid is searched for the view's title, ` pods(all)[20,016] `
//   (k9s's TitleFmt, the count with thousands separators). The full count
//   is the cluster's pods as the API counts them just before the spawn
//   (the first page of `/api/v1/pods?limit=1`: one item plus
//   remainingItemCount), reached when the title shows at least that (the
//   demo's Jobs may add a pod meanwhile). Also the time to the title's
//   first appearance with any count (k9s started, connected and drew the
//   view), so the part that is k9s starting can be told from the listing.
// - k9s's memory: its RSS when the full count shows and its peak (VmHWM),
//   from /proc/<pid>/status of the k9s process itself (the relay's child).
// - its CPU (utime + stime from /proc/<pid>/stat) over 10 s with the
//   cluster quiet, then over 10 s while ~200 changes/s arrive, then over
//   10 s quiet again. The changes are label
//   patches on random pods of namespace bench-ui (BENCH_NS), p-000000 to
//   p-<N-1> (N: the argument, else the namespace's count), the same writes
//   as ui.mjs's. Without such pods that window is skipped. k9s re-lists
//   its informer's cache and renders every row again 2 s after the last
//   refresh ended, changed or not (model.Table's updater, Hydrate), so
//   its CPU is mostly that loop's; on a machine the writes keep busy, its
//   refreshes come further apart, and it may do less work, not more.
//
// Why the count is fair against the app's "full sync" (ui.mjs, BENCH_ALL=1):
// both are the moment the screen says every pod is there. The app's is its
// table's "N of N" row count in the DOM, N at least the count the API gave;
// k9s's is its table's row count in the title, drawn from the rows it
// holds, N at least the count the API gave. Neither is a request finishing
// or a cache syncing unseen. Where they differ, and the figures must say so:
// - the app's clock starts at the route change in a tab already open (the
//   overview listed every pod before); k9s's at the spawn, so it includes
//   k9s starting (its config, discovery, the first draw). The time from
//   the title's first appearance to the full count is the closer match.
// - k9s redraws its table every 2 s (its refresh rate, whose minimum is 2
//   s), not when the list arrives; a person sees the count that late too.
// - k9s reaches the apiserver directly (TLS, its own client-go); the app
//   through kubectl proxy, one hop more.
// - both show the pods' CPU and memory columns by default (k9s from
//   metrics.k8s.io on each refresh; the app's BENCH_USAGE=1 default).
//
// Prints what it measured, and then one line of JSON with the same figures.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { keepAliveClient, nodeBase, writeAtRate } from './lib.mjs';
import { Screen } from './screen.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../..');
const [base = process.env.KUBEGLASS_API ?? 'http://127.0.0.1:8001', countArg] = process.argv.slice(2);
const NS = process.env.BENCH_NS ?? 'bench-ui';
const COLS = 200;
const ROWS = 50;
const WINDOW_MS = 10000;
const TIMEOUT_MS = Number(process.env.K9S_TIMEOUT_MS ?? 600000);

const api = async (p) => {
  const r = await fetch(`${nodeBase(base)}${p}`);
  if (!r.ok) throw new Error(`GET ${p}: ${r.status} ${await r.text()}`);
  return r.json();
};
const countPods = async (ns) => {
  const page = await api(ns ? `/api/v1/namespaces/${ns}/pods?limit=1` : '/api/v1/pods?limit=1');
  return page.items.length + (page.metadata.remainingItemCount ?? 0);
};

// The binary, from the one script that pins its version (built if missing).
const k9s = process.env.K9S ?? execFileSync('bash', [path.join(REPO, 'hack/build-k9s.sh')], { stdio: ['ignore', 'pipe', 'inherit'] })
  .toString().trim().split('\n').pop();
const cache = process.env.KUBEGLASS_CACHE ?? path.join(os.homedir(), '.cache/kubeglass');
// (Not $KUBECONFIG: that may name another cluster than the base's.)
const kubeconfig = process.env.K9S_KUBECONFIG
  ?? path.join(process.env.KUBEGLASS_CLUSTER_DIR ?? path.join(cache, 'cluster'), 'admin.kubeconfig');
if (!existsSync(kubeconfig)) throw new Error(`no kubeconfig at ${kubeconfig}: start the demo cluster (make demo) or set K9S_KUBECONFIG`);

// A home of its own: no user config, no state from an earlier run.
const home = mkdtempSync(path.join(os.tmpdir(), 'k9s-bench-'));
const configDir = path.join(home, 'config');
mkdirSync(configDir, { recursive: true });
writeFileSync(path.join(configDir, 'config.yaml'), 'k9s:\n  readOnly: true\n  skipLatestRevCheck: true\n');
const k9sEnv = {
  PATH: process.env.PATH, HOME: home, TERM: 'xterm-256color', LANG: 'C.UTF-8',
  K9S_CONFIG_DIR: configDir, XDG_CONFIG_HOME: path.join(home, 'xdg-config'),
  XDG_STATE_HOME: path.join(home, 'state'), XDG_DATA_HOME: path.join(home, 'data'), XDG_CACHE_HOME: path.join(home, 'cache'),
};
const version = execFileSync(k9s, ['version', '--short'], { env: k9sEnv }).toString().match(/Version\s+(\S+)/)?.[1] ?? '?';

const ticks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());
const cpuSeconds = (pid) => {
  // Fields after the command's closing parenthesis: utime and stime are the
  // 14th and 15th of the whole line.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / ticks;
};
const memory = (pid) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kb('VmRSS') * 1024, peak: kb('VmHWM') * 1024 };
};
const mib = (b) => (b / 1048576).toFixed(1);

const expected = await countPods();
const nsPods = countArg ? Number(countArg) : await countPods(NS).catch(() => 0);
console.log(`k9s ${version}: ${expected} pods in the cluster (${nsPods} in ${NS}), ${COLS}×${ROWS} terminal, kubeconfig ${kubeconfig}`);

// K9S_LOG=file keeps k9s's log there, at debug level (else it is in the
// temporary state folder, at info level, printed only if the run fails).
const args = ['--kubeconfig', kubeconfig, '--all-namespaces', '--command', 'pods', '--readonly',
  ...(process.env.K9S_LOG ? ['--logFile', path.resolve(process.env.K9S_LOG), '--logLevel', 'debug'] : ['--logLevel', 'info'])];
if (process.env.K9S_CONTEXT) args.push('--context', process.env.K9S_CONTEXT);
const t0 = performance.now();
const child = spawn('python3', [path.join(HERE, 'pty-run.py'), String(COLS), String(ROWS), k9s, ...args], {
  stdio: ['pipe', 'pipe', 'pipe'],
  env: k9sEnv,
});
const pid = await new Promise((resolve, reject) => {
  let err = '';
  child.stderr.on('data', (d) => {
    err += d;
    const m = /^pid (\d+)$/m.exec(err);
    if (m) resolve(Number(m[1]));
  });
  child.on('exit', (code) => reject(new Error(`the pty relay exited (${code}) before starting k9s: ${err}`)));
});

// Watch the screen for the title: when it first shows, and when it first
// shows the full count.
const screen = new Screen(COLS, ROWS);
const TITLE = /\bPods\(([^)]*)\)\[([\d,]+)\]/i;
let title = null;
let drawn = null;
let onFull;
const full = new Promise((resolve, reject) => {
  onFull = resolve;
  child.on('exit', (code) => reject(new Error(`k9s exited (${code}) before showing ${expected} pods; screen:\n${screen.lines().join('\n')}`)));
  setTimeout(() => reject(new Error(`k9s did not show ${expected} pods in ${TIMEOUT_MS / 1000} s; title ${title ?? 'never drawn'}`)), TIMEOUT_MS).unref();
});
full.catch(() => {});
child.stdout.on('data', (d) => {
  screen.write(d);
  const m = screen.lines().map((l) => TITLE.exec(l)).find(Boolean);
  if (!m) return;
  title = m[0];
  const shown = Number(m[2].replaceAll(',', ''));
  const now = performance.now() - t0;
  if (drawn === null) drawn = { ms: now, title };
  if (shown >= expected) onFull({ ms: now, shown, memory: memory(pid) });
});

let result;
try {
  const shown = await full;
  console.log(`pods view first drawn ${drawn.ms.toFixed(0)} ms after the spawn ("${drawn.title}"); `
    + `full count shown ${shown.ms.toFixed(0)} ms after the spawn, ${(shown.ms - drawn.ms).toFixed(0)} ms after the first draw ("${title}")`);
  console.log(`k9s's RSS when the full count showed: ${mib(shown.memory.rss)} MiB`);

  // CPU over a quiet window, then under ~200 changes/s.
  const cpuOver = async (during) => {
    const c0 = cpuSeconds(pid);
    const w0 = performance.now();
    const extra = await during();
    const secs = (performance.now() - w0) / 1000;
    const cpu = cpuSeconds(pid) - c0;
    return { seconds: secs, cpuSeconds: cpu, percentOfOneCore: (100 * cpu) / secs, ...extra };
  };
  const quiet = await cpuOver(() => new Promise((r) => { setTimeout(() => r({}), WINDOW_MS); }));
  console.log(`CPU, cluster quiet: ${quiet.cpuSeconds.toFixed(2)} s in ${quiet.seconds.toFixed(1)} s (${quiet.percentOfOneCore.toFixed(0)}% of a core)`);
  let changes = null;
  if (nsPods > 0) {
    const client = keepAliveClient(base);
    changes = await cpuOver(async () => {
      const t = Date.now();
      const { done } = writeAtRate(WINDOW_MS, (n) => client.call('PATCH',
        `/api/v1/namespaces/${NS}/pods/p-${String(Math.floor(Math.random() * nsPods)).padStart(6, '0')}`,
        { metadata: { labels: { tick: String(n + 1) } } }, 'application/merge-patch+json'));
      const writes = await done;
      return { changesPerSecond: writes.applied / ((Date.now() - t) / 1000) };
    });
    client.close();
    console.log(`CPU under ${changes.changesPerSecond.toFixed(0)} changes/s: ${changes.cpuSeconds.toFixed(2)} s in ${changes.seconds.toFixed(1)} s `
      + `(${changes.percentOfOneCore.toFixed(0)}% of a core)`);
  } else {
    console.log(`no pods in ${NS}: no window under changes`);
  }
  // Quiet again: the first quiet window follows the full count at once,
  // and may hold work left from the sync.
  const after = await cpuOver(() => new Promise((r) => { setTimeout(() => r({}), WINDOW_MS); }));
  console.log(`CPU, quiet again: ${after.cpuSeconds.toFixed(2)} s in ${after.seconds.toFixed(1)} s (${after.percentOfOneCore.toFixed(0)}% of a core)`);
  const end = memory(pid);
  console.log(`k9s's peak RSS (VmHWM) over the run: ${mib(end.peak)} MiB; RSS at the end ${mib(end.rss)} MiB`);
  result = {
    bench: 'k9s', version, pods: expected, shown: shown.shown, terminal: `${COLS}x${ROWS}`,
    firstDrawMs: Math.round(drawn.ms), fullCountMs: Math.round(shown.ms), fullCountAfterFirstDrawMs: Math.round(shown.ms - drawn.ms),
    rssAtFullCountMiB: Number(mib(shown.memory.rss)), peakRssMiB: Number(mib(end.peak)), endRssMiB: Number(mib(end.rss)),
    cpuQuiet: quiet, cpuUnderChanges: changes, cpuQuietAfter: after,
  };
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => { if (child.exitCode !== null || child.signalCode !== null) r(); else child.on('exit', r); });
  if (!result) {
    const log = path.join(home, 'state/k9s/k9s.log');
    if (existsSync(log)) console.error(`k9s's log (${log}), last lines:\n${readFileSync(log, 'utf8').split('\n').slice(-20).join('\n')}`);
  }
  rmSync(home, { recursive: true, force: true });
}
console.log(JSON.stringify(result));
