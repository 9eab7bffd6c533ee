// Logs, through the real path: the apiserver asks kwok's kubelet API (the
// nodes' address and port, the apiserver's kubelet client certificate) for
// the files hack/demo-logs.py writes, and the app reads them through
// kubectl proxy. Each test compares with `kubectl logs` or checks what a
// person sees.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { withApp, cleanUp, startApp, apply, kubectl, until } from '../lib.mjs';
import { logView } from '../pages.mjs';

const SUFFIX = `${Date.now() % 1000000}`;
const POD = `e2e-logs-${SUFFIX}`;
// hack/demo-logs.py keeps each container's log under the cluster's folder.
const CLUSTER_DIR = dirname(process.env.ETCD_PKI);
const logFile = (ns, pod, container) => join(CLUSTER_DIR, 'pod-logs', ns, pod, `${container}.log`);

const lines = (page) => logView(page).texts();
const kubectlLines = (...args) => execFileSync(process.env.KUBECTL, ['--kubeconfig', process.env.KUBECONFIG,
  '-n', 'demo-shop', 'logs', POD, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).split('\n').filter((l) => l !== '');

const app = withApp({
  async setup() {
    const manifest = {
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: POD, namespace: 'demo-shop', labels: { 'kubeglass.dev/logs': 'failing', e2e: 'logs' } },
      spec: {
        initContainers: [{ name: 'setup', image: 'registry.example/e2e/setup:1' }],
        containers: [{ name: 'worker', image: 'registry.example/e2e/worker:1', ports: [{ containerPort: 9090, name: 'metrics' }],
          resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '32Mi' } } },
        { name: 'sidecar', image: 'registry.example/e2e/sidecar:1' }],
      },
    };
    apply(manifest);
    // kwok runs it, and the log writer has written a few lines of each container.
    const ready = await until(() => {
      try {
        return kubectlLines('-c', 'worker').length >= 4 && kubectlLines('-c', 'sidecar').length >= 2;
      } catch { return false; }
    }, 60000, 250);
    assert.ok(ready, `${POD} has no log after 60 s`);
  },
  teardown() {
    cleanUp(
      ['-n', 'demo-shop', 'delete', 'pod', POD, '--wait=false', '--ignore-not-found'],
      ['-n', 'demo-shop', 'scale', 'deployment/frontend', '--replicas=3'],
    );
  },
});

test('a pod page lists its containers and opens their logs', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/o/pods/demo-shop/${POD}`);
  const rows = page.getByTestId('container-row');
  await until(async () => (await rows.count()) === 3);
  assert.deepEqual(await rows.evaluateAll((r) => r.map((e) => e.dataset.container)), ['setup', 'worker', 'sidecar']);
  assert.match(await page.getByTestId('pod-node').innerText(), /^kwok-node-\d$/);
  assert.equal(await page.getByTestId('pod-qos').innerText(), 'Burstable');
  const worker = rows.filter({ hasText: 'worker' });
  assert.match(await worker.innerText(), /9090\/TCP metrics/);
  assert.match(await worker.innerText(), /requests cpu 10m, memory 16Mi · limits memory 32Mi/);
  await worker.getByTestId('container-logs').click();
  await page.getByTestId('log-line').first().waitFor();
  assert.match(page.url(), new RegExp(`#/logs/demo-shop/${POD}\\?c=worker$`));
  assert.match(await page.getByTestId('log-title').innerText(), new RegExp(`container worker of pod ${POD}`));
});

test('the log view shows what kubectl logs shows, for tail, previous, container and since', async () => {
  const { page } = app;
  // The last 5 lines, read once: a run of kubectl's last lines read just after.
  await page.goto(`${app.url}#/logs/demo-shop/${POD}?c=worker&tail=5&follow=0`);
  await until(async () => (await lines(page)).length === 5);
  const shown = await lines(page);
  assert.equal(shown.length, 5);
  const theirs = kubectlLines('-c', 'worker', '--tail', '30');
  const at = theirs.indexOf(shown[0]);
  assert.ok(at >= 0, `"${shown[0]}" is not in kubectl's last lines`);
  assert.deepEqual(theirs.slice(at, at + 5), shown, 'the same five lines in the same order');
  // The previous container's log, which does not change: equal.
  await page.goto(`${app.url}#/logs/demo-shop/${POD}?c=worker&previous=1`);
  const previous = kubectlLines('-c', 'worker', '--previous');
  assert.ok(previous.some((l) => l.includes('FileNotFoundError')), 'the writer wrote a previous log');
  await until(async () => (await lines(page)).length === previous.length);
  assert.deepEqual(await lines(page), previous);
  // Another container.
  await page.goto(`${app.url}#/logs/demo-shop/${POD}?c=sidecar&tail=3&follow=0`);
  await until(async () => (await lines(page)).length === 3);
  for (const l of await lines(page)) assert.match(l, /^sidecar: /);
  // Since: only lines of the last 3 seconds, none of the start.
  await page.goto(`${app.url}#/logs/demo-shop/${POD}?c=worker&since=3&follow=0&ts=1`);
  const loaded = Date.now();
  await until(async () => (await lines(page)).length > 0);
  const stamps = await page.locator('[data-testid=log-line] .log-ts').allInnerTexts();
  assert.ok(stamps.length > 0 && stamps.length <= 5, `${stamps.length} lines in 3 s at one a second`);
  for (const s of stamps) assert.ok(Date.parse(s) >= loaded - 6000, `${s} is older than 3 s (and slack)`);
  assert.ok(!(await lines(page)).some((l) => l.startsWith('starting worker')), 'the first line is older');
});

test('a line written after the view opened appears', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/logs/demo-shop/${POD}?c=worker`);
  await page.getByTestId('log-line').first().waitFor();
  const marker = `e2e-late-line-${SUFFIX}`;
  const written = Date.now();
  appendFileSync(logFile('demo-shop', POD, 'worker'), `${new Date().toISOString()} stdout F ${marker}\n`);
  await page.getByTestId('log-line').filter({ hasText: marker }).waitFor({ timeout: 15000 });
  console.log(`# a new line appeared ${Date.now() - written} ms after it was written`);
  // It arrived over WebSocket, and the X-ray page lists the stream.
  await page.evaluate(() => { location.hash = '#/xray'; });
  const row = page.getByTestId('xray-log-stream').filter({ hasText: `demo-shop/${POD}` }).first();
  await row.waitFor();
  assert.match(await row.innerText(), /worker\s+WebSocket/);
});

test('the filter hides lines that do not match and marks the matches', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/logs/demo-shop/${POD}?c=worker`);
  await until(async () => (await lines(page)).length >= 4);
  assert.ok((await lines(page)).some((l) => l.startsWith('starting worker')));
  await page.getByTestId('log-filter').fill('/attempt [0-9]+/');
  await until(async () => !(await lines(page)).some((l) => l.startsWith('starting')));
  const shown = await lines(page);
  assert.ok(shown.length > 0);
  for (const l of shown) assert.match(l, /attempt \d+/);
  const marks = await page.locator('[data-testid=log-line] .log-match').allInnerTexts();
  assert.ok(marks.length >= shown.length && marks.every((m) => /^attempt \d+$/.test(m)), `marked: ${marks.slice(0, 3)}`);
  assert.match(page.url(), /q=%2Fattempt/);
  await page.getByTestId('log-filter').fill('/(/');
  await page.getByTestId('log-filter-error').waitFor();
  assert.equal((await lines(page)).length, 0);
});

test('pausing holds new lines back and resuming shows them', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/logs/demo-shop/${POD}?c=worker`);
  await until(async () => (await lines(page)).length >= 4);
  await page.getByTestId('log-pause').click();
  const count = () => page.getByTestId('log-count').innerText();
  const before = await count();
  const held = page.getByTestId('log-paused-new');
  await until(async () => /paused: \d+ lines? arrived/.test(await held.innerText()), 15000);
  const waiting = Number(/(\d+) lines? arrived/.exec(await held.innerText())[1]);
  assert.ok(waiting >= 1);
  assert.equal(await count(), before, 'nothing new is shown while paused');
  await page.getByTestId('log-pause').click();
  const after = Number.parseInt(await count(), 10);
  assert.ok(after >= Number.parseInt(before, 10) + waiting, `${before} then ${after} after ${waiting} arrived`);
});

test('ANSI colours and HTML in a line render as text', async () => {
  const { page } = app;
  const pod = kubectl('-n', 'demo-shop', 'get', 'pods', '-l', 'app=cart', '-o', 'jsonpath={.items[0].metadata.name}');
  await page.goto(`${app.url}#/logs/demo-shop/${pod}`);
  const line = page.getByTestId('log-line').filter({ hasText: 'onerror' }).first();
  await line.waitFor();
  const text = await line.locator('.log-text').textContent();
  assert.match(text, /^(INFO|WARN|ERROR) api request \d+ <b>bold\?<\/b> <img src=x onerror=alert\(1\)>$/);
  assert.doesNotMatch(text, /\x1b|\[3\dm/);
  const body = page.getByTestId('log-body');
  assert.equal(await body.locator('img, b').count(), 0, 'no element was made from a line');
  const level = line.locator('.log-text span').first();
  assert.match(await level.getAttribute('class'), /ansi-fg-[123]/);
  assert.notEqual(await level.evaluate((e) => getComputedStyle(e).color), await line.evaluate((e) => getComputedStyle(e).color));
});

test("a workload's merged view tags its pods' lines, and a pod created by scaling up joins", async () => {
  const { page } = app;
  await page.goto(`${app.url}#/logs/demo-shop/deployments.apps/frontend`);
  const sources = async () => new Set(await page.getByTestId('log-source').allInnerTexts());
  await until(async () => (await sources()).size >= 2, 20000);
  assert.ok((await sources()).size >= 2, 'lines of at least two pods');
  const before = new Set(kubectl('-n', 'demo-shop', 'get', 'pods', '-l', 'app=frontend', '-o', 'name').split('\n').filter(Boolean));
  kubectl('-n', 'demo-shop', 'scale', 'deployment/frontend', '--replicas=4');
  const joined = page.getByTestId('log-line').filter({ hasText: /— pod .* joined —/ });
  await joined.first().waitFor({ timeout: 30000 });
  const newPod = kubectl('-n', 'demo-shop', 'get', 'pods', '-l', 'app=frontend', '-o', 'name').split('\n').filter(Boolean)
    .find((p) => !before.has(p)).replace('pod/', '');
  const short = newPod.split('-').pop(); // after the name and the template hash
  assert.match(await joined.first().innerText(), new RegExp(short));
  await until(async () => (await sources()).has(short), 20000);
  assert.ok((await sources()).has(short), `lines of the new pod ${short}`);
  kubectl('-n', 'demo-shop', 'scale', 'deployment/frontend', '--replicas=3');
  await page.getByTestId('log-line').filter({ hasText: /— pod .* left —/ }).first().waitFor({ timeout: 30000 });
});

test('the view keeps at most the lines asked for and says how many it dropped', async () => {
  const { page } = app;
  // The importer wrote a burst of 100,000 lines.
  const pod = kubectl('-n', 'demo-batch', 'get', 'pods', '-l', 'app=importer', '-o', 'jsonpath={.items[0].metadata.name}');
  const total = execFileSync(process.env.KUBECTL, ['--kubeconfig', process.env.KUBECONFIG, '-n', 'demo-batch', 'logs', pod],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }).split('\n').filter((l) => l !== '').length;
  assert.ok(total > 20000, `the burst is there (${total} lines)`);
  await page.goto(`${app.url}#/logs/demo-batch/${pod}?tail=all&keep=10000`);
  const count = page.getByTestId('log-count');
  // It writes a line a second after the burst, so the view may hold more
  // than kubectl counted a moment ago, never fewer.
  const held = /^10000 lines · (\d+) oldest dropped \(the view keeps 10000\)$/;
  assert.ok(await until(async () => {
    const m = held.exec(await count.innerText());
    return m && Number(m[1]) >= total - 10000;
  }, 60000), `kept 10000 of at least ${total}: ${await count.innerText()}`);
  // The newest lines are the ones kept.
  const last = kubectl('-n', 'demo-batch', 'logs', pod, '--tail', '1').trim();
  assert.ok(await until(async () => (await lines(page)).includes(last)), `the last line (${last}) is shown`);
  // A larger cap from the menu goes into the URL.
  await page.getByTestId('log-keep').selectOption('50000');
  assert.ok(await until(async () => page.url().includes('keep=50000')), page.url());
});

test('a 10 MiB line is cut with a mark, control and bidi characters show, and the download keeps the exact text', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/logs/demo-shop/${POD}?c=worker`);
  await page.getByTestId('log-line').first().waitFor();
  const long = `e2e-long-${SUFFIX} ${'x'.repeat(10 * 1024 * 1024)}`;
  const tricky = `e2e-tricky-${SUFFIX} bell\x07 csi\u009b31m rlo\u202etxt.exe`;
  // As a container runtime stores a long line: 16 KiB pieces tagged P
  // (partial), the last tagged F; the kubelet API joins them.
  const stamp = new Date().toISOString();
  const pieces = [];
  for (let at = 0; at < long.length; at += 16384) {
    const end = Math.min(at + 16384, long.length);
    pieces.push(`${stamp} stdout ${end === long.length ? 'F' : 'P'} ${long.slice(at, end)}\n`);
  }
  appendFileSync(logFile('demo-shop', POD, 'worker'), `${pieces.join('')}${stamp} stdout F ${tricky}\n`);
  const cutLine = page.getByTestId('log-line').filter({ hasText: `e2e-long-${SUFFIX}` });
  await cutLine.waitFor({ timeout: 30000 });
  // The line as the view holds it: 64 KiB of what the API sent (the
  // runtime's timestamp, about 31 bytes, is part of it), and a mark with
  // the whole length.
  const kept = await cutLine.locator('.log-text').textContent();
  assert.ok(kept.length <= 64 * 1024 && kept.length > 64 * 1024 - 40, `the first 64 KiB of the line (${kept.length})`);
  assert.ok(long.startsWith(kept));
  assert.equal(await cutLine.getByTestId('log-cut').textContent(), ' … [line cut: the first 64 KiB of 10.0 MiB kept]');
  // The next line came after it, and the page still answers: the filter works.
  const trickyLine = page.getByTestId('log-line').filter({ hasText: `e2e-tricky-${SUFFIX}` });
  await trickyLine.waitFor({ timeout: 15000 });
  assert.equal(await trickyLine.locator('.log-text').textContent(),
    `e2e-tricky-${SUFFIX} bell^G csiM-^[31m rlo<U+202E>txt.exe`);
  // The download holds the text as written, each control character as sent.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('log-download').click()]);
  const saved = readFileSync(await download.path(), 'utf8');
  assert.ok(saved.includes(`${tricky}\n`), 'the tricky line is saved exactly');
  assert.ok(saved.includes(`${kept} … [line cut: the first 64 KiB of 10.0 MiB kept]\n`), 'the cut line is saved cut, and says so');
  await page.getByTestId('log-filter').fill(`e2e-tricky-${SUFFIX}`);
  assert.ok(await until(async () => (await lines(page)).length === 1, 10000), 'the filter still answers');
});

test('someone who may not read a namespace is told so', async (t) => {
  const { page } = app;
  const restricted = await startApp(process.env.RESTRICTED_KUBECONFIG);
  t.after(async () => { await restricted.stop(); });
  await page.goto(`${restricted.url}#/logs/demo-data/postgres-0`);
  const problem = page.getByTestId('log-problem');
  await problem.waitFor();
  assert.equal(await problem.getAttribute('data-problem'), 'forbidden');
  assert.match(await problem.innerText(), /You cannot/);
  // Where the account may read (view in demo-shop), the log shows.
  await page.goto(`${restricted.url}#/logs/demo-shop/${POD}?c=worker`);
  await page.getByTestId('log-line').first().waitFor();
  assert.equal(await page.getByTestId('log-problem').count(), 0);
});

test('someone who may read a pod but not its log (pods/log) is told so', async (t) => {
  const { page } = app;
  // In demo-batch the restricted user may read pods, and nothing else.
  const rbac = [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'e2e-pods-only', namespace: 'demo-batch' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch'] }] },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'e2e-pods-only', namespace: 'demo-batch' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'e2e-pods-only' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'viewer' }] },
  ];
  apply({ apiVersion: 'v1', kind: 'List', items: rbac });
  const restricted = await startApp(process.env.RESTRICTED_KUBECONFIG);
  t.after(async () => {
    await restricted.stop();
    kubectl('-n', 'demo-batch', 'delete', 'rolebinding,role', 'e2e-pods-only', '--ignore-not-found');
  });
  const pod = kubectl('-n', 'demo-batch', 'get', 'pods', '-l', 'app=importer', '-o', 'jsonpath={.items[0].metadata.name}');
  assert.ok(pod, 'the importer has a pod');
  await page.goto(`${restricted.url}#/logs/demo-batch/${pod}`);
  const problem = page.getByTestId('log-problem');
  await problem.waitFor();
  assert.equal(await problem.getAttribute('data-problem'), 'forbidden');
  assert.match(await problem.innerText(), new RegExp(`You cannot read the logs of container \\S+ of pod ${pod}: your account is not allowed to \\(pods/log\\)`));
  // The pod itself was readable: its containers are offered.
  assert.ok((await page.getByTestId('log-container').locator('option').count()) >= 1);
});
