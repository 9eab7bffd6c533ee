// A shell in a container, through the real path: Chromium speaks the exec
// WebSocket protocol (v5.channel.k8s.io) to kubectl glass, which passes it
// to kubectl proxy, the apiserver and kwok's kubelet API; kwok runs the
// command on this machine as nobody, in a folder of its own
// (hack/cluster.sh's ClusterExec). What is typed runs; the window's size is
// the terminal's; the end is said; and who may not open one cannot.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { withApp, startApp, launchBrowser, cleanUp, apply, kubectl, until, listenAnywhere } from '../lib.mjs';
import { shellView } from '../pages.mjs';

const SUFFIX = `${Date.now() % 1000000}`;
const POD = `e2e-shell-${SUFFIX}`;
const EXEC = `/api/v1/namespaces/demo-shop/pods/${POD}/exec?container=app&command=%2Fbin%2Fsh&stdin=true&stdout=true&tty=true`;

const app = withApp({
  async setup() {
    apply({
      apiVersion: 'v1', kind: 'Pod',
      metadata: { name: POD, namespace: 'demo-shop', labels: { e2e: 'shell' } },
      spec: { containers: [{ name: 'app', image: 'registry.example/e2e/shell:1' }] },
    });
    const running = await until(() => kubectl('-n', 'demo-shop', 'get', 'pod', POD, '-o', 'jsonpath={.status.phase}') === 'Running', 60000, 250);
    assert.ok(running, `${POD} is not Running after 60 s`);
  },
  teardown() {
    cleanUp(['-n', 'demo-shop', 'delete', 'pod', POD, '--wait=false', '--ignore-not-found']);
  },
});

/**
 * Asks the door by hand for the exec WebSocket, as a program would; with
 * `origin`, as a page there would, to the run's own name (`host`, which a
 * browser uses: at 127.0.0.1 a browser is refused before its origin is
 * read). Resolves with the status and body.
 */
function askForShell(base, { origin, host } = {}) {
  const url = new URL(`${base}${EXEC}`);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: url.hostname, port: url.port, path: url.pathname + url.search,
      headers: {
        Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Protocol': 'v5.channel.k8s.io',
        ...(origin ? { Origin: origin } : {}),
        ...(host ? { Host: host } : {}),
      },
    });
    req.on('upgrade', (res, socket) => { socket.destroy(); resolve({ status: res.statusCode, body: '' }); });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('a shell runs what is typed, takes the window\'s size and says how it ended', async () => {
  const { page } = app;
  const shell = shellView(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${app.url}#/o/pods/demo-shop/${POD}`);
  await page.getByTestId('container-shell').click();
  assert.match(page.url(), new RegExp(`#/exec/demo-shop/${POD}/app$`));
  await until(async () => (await shell.state()).state === 'open', 20000);
  assert.match((await shell.state()).words, /^\/bin\/bash · v5\.channel\.k8s\.io$/);

  await shell.run('echo $((6*7))');
  assert.ok(await until(async () => (await shell.lines()).includes('42'), 10000), `no 42: ${(await shell.lines()).join('\n')}`);

  // `stty size` on a cleared screen: its answer is the one line of two numbers.
  const size = async () => {
    await shell.run('clear');
    await until(async () => !(await shell.lines()).some((l) => /^\d+ \d+$/.test(l)), 5000);
    await shell.run('stty size');
    let answer;
    await until(async () => {
      answer = (await shell.lines()).map((l) => /^(\d+) (\d+)$/.exec(l)).find(Boolean);
      return answer !== undefined;
    }, 10000);
    return answer ? [Number(answer[1]), Number(answer[2])] : undefined;
  };
  const big = await size();
  assert.ok(big, `stty size answered: ${(await shell.lines()).join('\n')}`);
  assert.equal(big[0], (await shell.lines()).length, 'the rows stty reports are the rows drawn');
  await page.setViewportSize({ width: 800, height: 500 });
  await until(async () => (await shell.lines()).length < big[0], 5000);
  const small = await size();
  assert.ok(small && small[0] < big[0] && small[1] < big[1], `the size follows the window: ${big} then ${small}`);
  assert.equal(small[0], (await shell.lines()).length);

  await shell.run('exit 3');
  await until(async () => (await shell.state()).state === 'ended', 10000);
  // kwok's kubelet API reports the code in words, not as NonZeroExitCode.
  assert.match((await shell.state()).words, /exit status 3/);
  assert.deepEqual(app.errors, []);
});

test('the restricted user sees no Shell, and its shell page says why', async (t) => {
  const restricted = await startApp(process.env.RESTRICTED_KUBECONFIG);
  const browser = await launchBrowser();
  t.after(async () => {
    await browser.close();
    await restricted.stop();
  });
  const { page } = browser;
  await page.goto(`${restricted.url}#/o/pods/demo-shop/${POD}`);
  await page.getByTestId('shell-denied').waitFor({ state: 'attached' });
  assert.equal(await page.getByTestId('container-shell').count(), 0);
  await page.goto(`${restricted.url}#/exec/demo-shop/${POD}/app`);
  await page.getByTestId('exec-refused').waitFor();
  assert.match(await page.getByTestId('exec-refused').innerText(), /RBAC does not allow create on pods\/exec/);
  assert.equal(await page.getByTestId('terminal').count(), 0);
});

test('--read-only and --no-exec refuse a shell at the door, and another origin cannot open one', async (t) => {
  // The same request by hand: the usual app lets it through, so the
  // refusals below are the flags', not the request's.
  assert.equal((await askForShell(app.api)).status, 101);
  const host = new URL(app.browserApi).host;
  const evil = await askForShell(app.api, { origin: 'http://evil.example', host });
  assert.equal(evil.status, 403, evil.body);
  assert.match(evil.body, /cross-site request refused/);
  const ours = await askForShell(app.api, { origin: `http://${host}`, host });
  assert.equal(ours.status, 101, `the same request from our own origin: ${ours.body}`);
  for (const [flags, words] of [[['--no-exec'], /--no-exec/], [['--read-only'], /--read-only/]]) {
    const run = await startApp(undefined, { flags });
    try {
      const a = await askForShell(run.api);
      assert.equal(a.status, 403, `${flags}: ${a.body}`);
      assert.match(a.body, words);
      const browser = await launchBrowser();
      try {
        await browser.page.goto(`${run.url}#/exec/demo-shop/${POD}/app`);
        await browser.page.getByTestId('exec-refused').waitFor();
        assert.match(await browser.page.getByTestId('exec-refused').innerText(), /--read-only or --no-exec/);
      } finally {
        await browser.close();
      }
    } finally {
      await run.stop();
    }
  }
  // A page on another origin, in the same Chromium, opening the socket to
  // the run's own name with the token: refused before it opens.
  const foreign = http.createServer((req, res) => { res.setHeader('content-type', 'text/html'); res.end('<!doctype html><title>evil</title>'); });
  const foreignPort = await listenAnywhere(foreign);
  t.after(async () => { await new Promise((r) => foreign.close(r)); });
  await app.page.goto(`http://127.0.0.1:${foreignPort}/`);
  const target = `${app.browserApi.replace(/^http/, 'ws')}${EXEC}`;
  const outcome = await app.page.evaluate((u) => new Promise((resolve) => {
    const ws = new WebSocket(u, ['v5.channel.k8s.io']);
    ws.onopen = () => resolve('opened');
    ws.onclose = (e) => resolve(`closed ${e.code}`);
  }), target);
  assert.equal(outcome, 'closed 1006');
});
