// Port-forwards, through the real path: the app asks kubectl glass, which
// runs the real `kubectl port-forward` on the test cluster's kubeconfig;
// the apiserver asks kwok's kubelet API, which (hack/cluster.sh's
// ClusterPortForward) leads every pod's port to a small real HTTP server
// on this machine. Node fetches the page at the address the app shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { withApp, startApp, launchBrowser, cleanUp, apply, kubectl, until } from '../lib.mjs';
import { forwards, forwardPanel, frame } from '../pages.mjs';

const SUFFIX = `${Date.now() % 1000000}`;
const NAME = `e2e-fwd-${SUFFIX}`;
const HELLO = /Hello from the demo cluster: this page came through kubectl port-forward/;

const app = withApp({
  async setup() {
    apply({
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: NAME, namespace: 'demo-shop', labels: { app: NAME } },
      spec: { containers: [{ name: 'web', image: 'registry.example/e2e/web:1', ports: [{ containerPort: 8080, name: 'http' }] }] },
    });
    apply({
      apiVersion: 'v1', kind: 'Service',
      metadata: { name: NAME, namespace: 'demo-shop' },
      spec: { selector: { app: NAME }, ports: [{ port: 80, targetPort: 8080, name: 'web' }] },
    });
    const running = await until(() => kubectl('-n', 'demo-shop', 'get', 'pod', NAME, '-o', 'jsonpath={.status.phase}') === 'Running', 60000, 250);
    assert.ok(running, `${NAME} is not Running after 60 s`);
  },
  teardown() {
    cleanUp(['-n', 'demo-shop', 'delete', 'pod,service', NAME, '--wait=false', '--ignore-not-found']);
  },
});

/** The page at `local` (`127.0.0.1:port`), or the error's code. */
async function get(local) {
  try {
    const r = await fetch(`http://${local}/`, { signal: AbortSignal.timeout(10000) });
    return { status: r.status, text: await r.text() };
  } catch (e) {
    return { error: e.cause?.code ?? String(e) };
  }
}

/** The pids of the `kubectl port-forward` processes for `target` (the launcher's children, with `parent`). */
function forwarders(target, parent) {
  const out = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' });
  return out.split('\n').map((l) => l.trim().split(/\s+/))
    .filter(([, ppid, ...args]) => args.includes('port-forward') && args.includes(target) && (parent === undefined || Number(ppid) === parent))
    .map(([pid]) => Number(pid));
}

/** True while `pid` runs (a zombie, killed and not yet reaped, does not). */
function alive(pid) {
  try {
    const stat = execFileSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    return stat !== '' && !stat.startsWith('Z');
  } catch { return false; } // ps exits 1 for a pid it does not know
}

test('a Service forwarded from the Forwards page answers at the address shown, and Stop closes it', async () => {
  const { page } = app;
  const fwd = forwards(page);
  await page.goto(`${app.url}#/`);
  await frame(page).nav('forwards').click();
  await fwd.none();
  await fwd.start('demo-shop', NAME, '80');
  const outcome = fwd.outcome();
  await outcome.waitFor();
  assert.match(await outcome.innerText(), new RegExp(`^Forwarding 127\\.0\\.0\\.1:\\d+ to service/${NAME}:80$`));
  const row = fwd.row();
  await row.waitFor();
  const local = await fwd.local(row).innerText();
  assert.equal(await fwd.local(row).getAttribute('href'), `http://${local}/`);
  const answer = await get(local);
  assert.equal(answer.status, 200, JSON.stringify(answer));
  assert.match(answer.text, HELLO);
  assert.equal(forwarders(`service/${NAME}`).length, 1);

  await fwd.stop(row);
  await fwd.none();
  assert.ok(await until(async () => (await get(local)).error === 'ECONNREFUSED', 10000), 'the port is closed after Stop');
  assert.ok(await until(() => forwarders(`service/${NAME}`).length === 0, 10000), 'kubectl port-forward ended');
  assert.deepEqual(app.errors, []);
});

test('a pod\'s port forwards from its page, and a forward fails in kubectl\'s words', async () => {
  const { page } = app;
  const fwd = forwards(page);
  await page.goto(`${app.url}#/o/pods/demo-shop/${NAME}`);
  const button = forwardPanel(page).port(8080);
  await button.waitFor();
  assert.equal(await button.innerText(), '8080/TCP http');
  await button.click();
  const outcome = fwd.outcome();
  await outcome.waitFor();
  const m = /^Forwarding (127\.0\.0\.1:\d+) → pod\/.+:8080$/.exec(await outcome.innerText());
  assert.ok(m, await outcome.innerText());
  assert.match((await get(m[1])).text, HELLO);
  // Nobody by that name: kubectl's own error, shown.
  await page.goto(`${app.url}#/forwards`);
  await fwd.start('demo-shop', 'nobody-here', '80');
  await until(async () => /not found/.test(await fwd.outcome().innerText().catch(() => '')), 20000);
  assert.match(await fwd.outcome().innerText(), /services "nobody-here" not found/);
});

test('no forward outlives the launcher, even killed, and read-only and restricted runs offer none', async (t) => {
  const run = await startApp();
  try {
    const res = await fetch(`${run.api}/glass/forwards`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ namespace: 'demo-shop', kind: 'pod', name: NAME, port: 8080 }),
    });
    assert.equal(res.status, 201, await res.clone().text());
    const f = await res.json();
    assert.match((await get(f.local)).text, HELLO);
    const mine = forwarders(`pod/${NAME}`, run.pid);
    assert.equal(mine.length, 1, 'one kubectl port-forward, the launcher\'s child');
    process.kill(run.pid, 'SIGKILL');
    await run.exited;
    assert.ok(await until(() => !alive(mine[0]), 10000), `kubectl port-forward ${mine[0]} outlived the launcher`);
    assert.equal((await get(f.local)).error, 'ECONNREFUSED');
  } finally {
    await run.stop();
  }
  const ro = await startApp(undefined, { readOnly: true });
  const browser = await launchBrowser();
  try {
    const res = await fetch(`${ro.api}/glass/forwards`, { method: 'POST', body: '{}' });
    assert.equal(res.status, 403);
    assert.match(await res.text(), /read-only: a port-forward opens a port into the cluster/);
    await browser.page.goto(`${ro.url}#/o/pods/demo-shop/${NAME}`);
    await forwardPanel(browser.page).denied().waitFor({ state: 'attached' });
    assert.equal(await frame(browser.page).nav('forwards').count(), 0);
    assert.equal(await forwardPanel(browser.page).ports().count(), 0);
  } finally {
    await browser.close();
    await ro.stop();
  }
  const restricted = await startApp(process.env.RESTRICTED_KUBECONFIG);
  const rb = await launchBrowser();
  t.after(async () => {
    await rb.close();
    await restricted.stop();
  });
  await rb.page.goto(`${restricted.url}#/o/pods/demo-shop/${NAME}`);
  await rb.page.getByTestId('container-logs').first().waitFor();
  await forwardPanel(rb.page).denied().waitFor({ state: 'attached' });
  assert.equal(await forwardPanel(rb.page).ports().count(), 0, 'no Forward for a user RBAC refuses');
});
