// Another origin: a page served from a different port on this machine, in
// the same real Chromium, tries everything the safe-by-default issue lists
// against the real proxy and cluster. Each attempt must fail; the same app
// under its token URL works (every other e2e test runs through it).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { kubectl, startProxy, launchBrowser, until, listenAnywhere, env, etcdPost } from '../lib.mjs';
import { frame } from '../pages.mjs';

// The proxy's port and the attacker's page's, each picked when it starts.
let PORT;
let evil;
let proxy;
let browser;
let foreign;
let node;

before(async () => {
  proxy = await startProxy();
  PORT = proxy.port;
  browser = await launchBrowser();
  node = kubectl('get', 'nodes', '-o', 'jsonpath={.items[0].metadata.name}').trim();
  // The attacker's page: any HTML the test asks for, on its own origin.
  foreign = http.createServer((req, res) => {
    const frame = new URL(req.url, 'http://x').searchParams.get('frame');
    res.setHeader('content-type', 'text/html');
    res.end(frame
      ? `<!doctype html><title>evil</title><iframe id="f" src="${frame}" width="1200" height="700"></iframe>`
      : '<!doctype html><title>evil</title><p>evil</p>');
  });
  evil = `http://127.0.0.1:${await listenAnywhere(foreign)}/`;
});

after(async () => {
  await browser?.close();
  await proxy?.stop();
  await new Promise((r) => (foreign ? foreign.close(r) : r()));
});

test('without the token, every path of the proxy is a 404, API and app alike', async () => {
  const root = `http://127.0.0.1:${PORT}`;
  for (const path of ['/', '/version', '/api', '/api/v1/secrets', '/api/v1/namespaces/demo-shop/configmaps',
    '/apis', '/ui/', '/ui/index.html', `/api/v1/nodes/${node}/proxy/`, '/healthz', `/${proxy.token.slice(0, 31)}/version`]) {
    const r = await fetch(root + path);
    assert.equal(r.status, 404, `${path} answered ${r.status}`);
  }
  // The WebSocket handshake too: not upgraded.
  const upgrade = await new Promise((resolve) => {
    const req = http.request({
      host: '127.0.0.1', port: PORT, path: '/api/v1/namespaces/demo-shop/configmaps?watch=true',
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', Origin: 'http://evil.example',
        'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==' },
    });
    req.on('upgrade', () => resolve(101));
    req.on('response', (res) => resolve(res.statusCode));
    req.on('error', (e) => resolve(String(e)));
    req.end();
  });
  assert.equal(upgrade, 404);
  // With the token the same API answers, so the 404s are the token's doing.
  assert.equal((await fetch(`${proxy.api}/version`)).status, 200);
});

test('a foreign page cannot open a WebSocket watch through the proxy', async () => {
  const { page } = browser;
  await page.goto(evil);
  const outcome = await page.evaluate((port) => new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/namespaces/demo-shop/configmaps?watch=true&resourceVersion=0`);
    let messages = 0;
    ws.onmessage = () => { messages += 1; };
    ws.onopen = () => setTimeout(() => resolve({ opened: true, messages }), 1000);
    ws.onerror = () => resolve({ opened: false, messages });
  }), PORT);
  assert.deepEqual(outcome, { opened: false, messages: 0 });
});

test('a foreign no-cors POST to a node proxy never reaches it: 404 without the token, 403 with it', async () => {
  const { page } = browser;
  await page.goto(evil);
  const statuses = [];
  const onResponse = (r) => { if (r.url().includes('/proxy/')) statuses.push([r.url(), r.status()]); };
  page.on('response', onResponse);
  await page.evaluate(async ({ port, node }) => {
    await fetch(`http://127.0.0.1:${port}/api/v1/nodes/${node}/proxy/run/default/x/y`, {
      mode: 'no-cors', method: 'POST', body: 'cmd=id',
    }).catch(() => {});
  }, { port: PORT, node });
  assert.ok(await until(async () => statuses.length > 0, 5000));
  page.off('response', onResponse);
  assert.equal(statuses.length, 1, JSON.stringify(statuses));
  assert.equal(statuses[0][1], 404, 'Chromium saw the proxy answer 404');
  // Even a caller that has the token is refused by the extended reject-paths,
  // for nodes, services and pods alike.
  for (const path of [`/api/v1/nodes/${node}/proxy/`, '/api/v1/namespaces/default/services/kubernetes:443/proxy/',
    '/api/v1/namespaces/demo-shop/pods/x/proxy/', '/api/v1/namespaces/demo-shop/pods/x/portforward',
    '/api/v1/namespaces/demo-shop/pods/x/exec', '/api/v1/namespaces/demo-shop/pods/x/attach']) {
    const r = await fetch(proxy.api + path, { method: 'POST', body: 'x' });
    assert.equal(r.status, 403, `${path} answered ${r.status}`);
  }
});

test('no service this project starts lets a foreign page read it', async () => {
  const { page } = browser;
  await page.goto(evil);
  const etcd = new URL(env('ETCD_URL'));
  const targets = [
    `${proxy.api}/version`, // even with the token: the proxy sends no CORS headers
    `http://127.0.0.1:${PORT}/version`,
    `${env('ETCD_URL')}/version`,
    `http://127.0.0.1:${etcd.port}/version`, // etcd speaks TLS only
    `${env('APISERVER_URL')}/version`,
    `${env('KWOK_URL')}/healthz`,
    `${env('CONTROL_URL')}/healthz`,
  ];
  const results = await page.evaluate(async (urls) => Promise.all(urls.map(async (u) => {
    try {
      const r = await fetch(u);
      return `${u} READ ${r.status} ${(await r.text()).slice(0, 60)}`;
    } catch (e) {
      return `${u} refused`;
    }
  })), targets);
  for (const r of results) assert.match(r, / refused$/, r);
  // And etcd's key range, a write-shaped POST as a page would send it.
  const range = await page.evaluate(async (url) => {
    try {
      await fetch(`${url}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: 'Lw==', range_end: 'AA==' }) });
      return 'answered';
    } catch { return 'refused'; }
  }, env('ETCD_URL'));
  assert.equal(range, 'refused');
  // A blind write needs no answer: a no-cors kv/put, to etcd's TLS port and
  // as plain HTTP, then a look with the project's client certificate.
  const key = Buffer.from(`/kubeglass-origin-probe/${randomBytes(8).toString('hex')}`).toString('base64');
  const sent = await page.evaluate(async ({ urls, key }) => Promise.all(urls.map(async (u) => {
    try {
      await fetch(`${u}/v3/kv/put`, { method: 'POST', mode: 'no-cors', body: JSON.stringify({ key, value: 'ZXZpbA==' }) });
      return 'sent';
    } catch { return 'refused'; }
  })), { urls: [env('ETCD_URL'), `http://127.0.0.1:${etcd.port}`], key });
  assert.deepEqual(sent, ['refused', 'refused'], 'the TLS handshake fails before any request is read');
  assert.equal((await etcdPost('/v3/kv/range', { key })).count ?? '0', '0', 'the key was not written');
  // The look can see: a key written with the client certificate is found.
  const own = Buffer.from(`/kubeglass-origin-probe/own-${randomBytes(4).toString('hex')}`).toString('base64');
  await etcdPost('/v3/kv/put', { key: own, value: 'b2s=' });
  assert.equal((await etcdPost('/v3/kv/range', { key: own })).count, '1');
  await etcdPost('/v3/kv/deleterange', { key: own });
  // And without a client certificate, even a client that trusts etcd's CA is refused.
  await assert.rejects(etcdPost('/v3/kv/range', { key }, { cert: false }));
  // The test control, without its token, is a 404 with no CORS header.
  const control = await fetch(`http://127.0.0.1:${new URL(env('CONTROL_URL')).port}/proxy/stop`,
    { method: 'POST', headers: { Origin: 'http://evil.example' } });
  assert.equal(control.status, 404);
  assert.equal(control.headers.get('access-control-allow-origin'), null);
});

test('framed by another origin, the app draws no controls and says why', async () => {
  const { page } = browser;
  await page.goto(`${evil}?frame=${encodeURIComponent(`${proxy.url}#/o/deployments.apps/demo-shop/frontend`)}`);
  const framed = page.frameLocator('#f');
  await framed.getByTestId('framed').waitFor({ timeout: 20000 });
  assert.match(await framed.getByTestId('framed').innerText(), /does not run inside a frame/);
  assert.equal(await framed.locator('button').count(), 0, 'no buttons');
  assert.equal(await framed.locator('a').count(), 0, 'no links');
  assert.equal(await framed.getByTestId('object-page').count(), 0);
  // The same URL in its own tab is the working app.
  await page.goto(`${proxy.url}#/o/deployments.apps/demo-shop/frontend`);
  await page.getByTestId('object-title').waitFor({ timeout: 20000 });
  assert.equal(await page.getByTestId('framed').count(), 0);
});

test('served without a token, the app works and says that other pages can reach the cluster', async (t) => {
  const plain = await startProxy(undefined, { plain: true });
  const b = await launchBrowser();
  t.after(async () => {
    await b.close();
    await plain.stop();
  });
  const { page } = b;
  await page.goto(plain.url);
  await frame(page).ready();
  assert.match(await page.getByTestId('unprotected-banner').innerText(), /no token/);
  // Under the token URL the same app says nothing of the kind.
  await page.goto(proxy.url);
  await frame(page).ready();
  assert.equal(await page.getByTestId('unprotected-banner').count(), 0);
});
