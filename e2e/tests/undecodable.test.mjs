// One object that does not decode must not stop a table (issue #26, item 1),
// and one that stops decoding is not deleted (issue #39, item 3).
//
// A real apiserver never sends an object that does not decode, so the test
// puts a small forwarding proxy of its own between Chromium and the real
// `kubectl proxy`. It passes everything through unchanged (WebSocket
// watches included) except two LIST answers: ConfigMaps in this test's
// namespace, where the Table row of one ConfigMap gets cells that are a
// string, and all Events, where one Event of this test gets labels that are
// a string. The pages must show every other object, keep them live, and
// name the bad one on the problem line and on the X-ray page. For the last
// test it also corrupts a second ConfigMap's row from a moment on, and ends
// the table's open watch (a fetch stream: Table watches do not go over
// WebSocket) with a 410, so the table relists and the list no longer reads
// that ConfigMap: its last good row must stay, marked stale, until it is
// really deleted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { startProxy, apply, kubectl, launchBrowser, until, listenAnywhere, cleanUp } from '../lib.mjs';
import { table as tableOf } from '../pages.mjs';

// The proxy's port and the forwarder's, each picked when it starts.
let PORT;
let FORWARD_PORT;
const NS = `e2e-undecodable-${Date.now() % 1000000}`;
const BAD = 'corrupted-cm';
const BAD_EVENT = 'corrupted-event';
/** Reads until the last test corrupts it: then it stops decoding. */
const VICTIM = 'stale-cm';
let proxy;
let forwarder;
let browser;
let corrupted = 0;
/** Set by the last test: VICTIM's row is corrupted from then on. */
let breakVictim = false;
let victimCorrupted = 0;
/** The open watches of this test's ConfigMaps, for the 410 the last test sends. */
const watches = new Set();

/** Is this a LIST (not a watch) of this test's ConfigMaps, or of all Events? */
const isTargetList = (url) => {
  const u = new URL(url, 'http://x');
  const listed = u.pathname.endsWith(`/api/v1/namespaces/${NS}/configmaps`) || u.pathname.endsWith('/api/v1/events');
  return listed && u.searchParams.get('watch') !== 'true';
};

/** Is this a watch of this test's ConfigMaps? */
const isTargetWatch = (url) => {
  const u = new URL(url, 'http://x');
  return u.pathname.endsWith(`/api/v1/namespaces/${NS}/configmaps`) && u.searchParams.get('watch') === 'true';
};

/** Makes BAD's Table row (and VICTIM's, once broken) and BAD_EVENT's object undecodable; returns the new body. */
function corrupt(body) {
  const list = JSON.parse(body);
  for (const row of list.rows ?? []) {
    const name = row.object?.metadata?.name;
    if (name === BAD || (breakVictim && name === VICTIM)) {
      row.cells = 'corrupted by the test proxy';
      corrupted += 1;
      if (name === VICTIM) victimCorrupted += 1;
    }
  }
  for (const item of list.items ?? []) {
    if (item.metadata?.name === BAD_EVENT && item.metadata?.namespace === NS) {
      item.metadata.labels = 'corrupted by the test proxy';
      corrupted += 1;
    }
  }
  return JSON.stringify(list);
}

/**
 * Ends every open watch of this test's ConfigMaps with a 410 ERROR event,
 * as an apiserver whose watch cache moved on would: the informer relists.
 * The upstream watch is left to time out; nothing more of it is passed on.
 */
function expireWatches() {
  const gone = {
    type: 'ERROR',
    object: {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Expired', code: 410,
      message: 'too old resource version (sent by the test proxy)',
    },
  };
  for (const w of watches) {
    w.done = true;
    w.res.end(`${JSON.stringify(gone)}\n`);
  }
  const n = watches.size;
  watches.clear();
  return n;
}

/** Passes a watch of this test's ConfigMaps through, kept in `watches` until it ends. */
function passWatch(res, upRes) {
  res.writeHead(upRes.statusCode, upRes.headers);
  const w = { res, done: false };
  watches.add(w);
  upRes.on('data', (c) => { if (!w.done) res.write(c); });
  upRes.on('end', () => {
    watches.delete(w);
    if (!w.done) res.end();
  });
  res.on('close', () => watches.delete(w));
}

/** Forwards 127.0.0.1:FORWARD_PORT to the kubectl proxy on PORT. */
async function startForwarder() {
  const server = http.createServer((req, res) => {
    const target = isTargetList(req.url);
    const watch = isTargetWatch(req.url);
    const headers = { ...req.headers, host: `127.0.0.1:${PORT}` };
    if (target || watch) delete headers['accept-encoding'];
    const up = http.request({ host: '127.0.0.1', port: PORT, path: req.url, method: req.method, headers }, (upRes) => {
      if (watch && upRes.statusCode === 200) {
        passWatch(res, upRes);
        return;
      }
      if (!target || upRes.statusCode !== 200) {
        res.writeHead(upRes.statusCode, upRes.headers);
        upRes.pipe(res);
        return;
      }
      const chunks = [];
      upRes.on('data', (c) => chunks.push(c));
      upRes.on('end', () => {
        const body = corrupt(Buffer.concat(chunks).toString('utf8'));
        const out = { ...upRes.headers, 'content-length': Buffer.byteLength(body) };
        delete out['transfer-encoding'];
        res.writeHead(200, out);
        res.end(body);
      });
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  // WebSocket watches: the handshake and the frames pass through untouched.
  server.on('upgrade', (req, socket, head) => {
    const up = net.connect(PORT, '127.0.0.1', () => {
      const lines = [`${req.method} ${req.url} HTTP/1.1`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        const [k, v] = [req.rawHeaders[i], req.rawHeaders[i + 1]];
        lines.push(k.toLowerCase() === 'host' ? `Host: 127.0.0.1:${PORT}` : `${k}: ${v}`);
      }
      up.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head?.length) up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    const close = () => { up.destroy(); socket.destroy(); };
    up.on('error', close);
    socket.on('error', close);
  });
  FORWARD_PORT = await listenAnywhere(server);
  return server;
}

before(async () => {
  kubectl('create', 'namespace', NS);
  for (const name of ['alpha-cm', BAD, VICTIM, 'omega-cm']) {
    apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data: { k: 'v' } });
  }
  for (const name of ['fine-event', BAD_EVENT]) {
    apply({
      apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: NS },
      involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: 'alpha-cm', namespace: NS },
      reason: 'E2EUndecodable', message: `${name} for the undecodable test`, type: 'Normal',
      source: { component: 'e2e' },
    });
  }
  // A plain kubectl proxy: the forwarder stands between it and the page on
  // another port, which the launcher (our Host and origin only) refuses.
  proxy = await startProxy();
  PORT = proxy.port;
  forwarder = await startForwarder();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  forwarder?.closeAllConnections();
  await new Promise((r) => (forwarder ? forwarder.close(r) : r()));
  await proxy?.stop();
  cleanUp(['delete', 'namespace', NS, '--wait=false']);
});

test('a ConfigMap whose row does not decode is named, and every other one is listed and stays live', async () => {
  const { page, errors } = browser;
  const url = proxy.url.replace(`:${PORT}/`, `:${FORWARD_PORT}/`);
  await page.goto(`${url}#/r/configmaps?ns=${NS}`);
  const table = page.locator(`[data-testid=resource-page][data-namespace="${NS}"]`);
  const problem = table.getByTestId('informer-error');
  await problem.waitFor({ timeout: 20000 });
  assert.equal(await problem.getAttribute('data-problem'), 'unreadable');
  const text = await problem.innerText();
  assert.match(text, new RegExp(`1 object: ${NS}/${BAD}: invalid type`), text);
  assert.ok(corrupted >= 1, 'the forwarder corrupted a LIST answer');

  const keys = async () => (await tableOf(table).keys()).sort();
  // The other ConfigMaps (kube-root-ca.crt included), once the informer's rows are in.
  assert.ok(await until(async () => (await keys()).includes(`${NS}/omega-cm`)
    && /^(\d+) of \1$/.test((await table.getByTestId('row-count').innerText()).trim())), 'rows listed');
  const listed = await keys();
  assert.ok(listed.includes(`${NS}/alpha-cm`) && listed.includes(`${NS}/omega-cm`), listed.join(' '));
  assert.ok(!listed.includes(`${NS}/${BAD}`), 'the bad object is not shown as a row');

  // Still live: a ConfigMap created now arrives through the watch.
  apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late-cm', namespace: NS }, data: { a: '1' } });
  assert.ok(await until(async () => (await keys()).includes(`${NS}/late-cm`)), 'a new ConfigMap appears live');

  assert.deepEqual(errors.filter((e) => !/Failed to load resource/.test(e)), [], 'no script errors');
});

test('an Event that does not decode is named on the event stream and on the X-ray page, and the rest are shown', async () => {
  const { page, errors } = browser;
  const url = proxy.url.replace(`:${PORT}/`, `:${FORWARD_PORT}/`);
  const before = corrupted;
  await page.goto(`${url}#/events`);
  const problem = page.getByTestId('events-problem');
  await problem.waitFor({ timeout: 20000 });
  assert.equal(await problem.getAttribute('data-problem'), 'unreadable');
  assert.match(await problem.innerText(), new RegExp(`${NS}/${BAD_EVENT}: invalid type`));
  assert.ok(corrupted > before, 'the forwarder corrupted the events LIST');
  // Its sibling, written at the same time, is shown.
  const rows = page.getByTestId('event-row');
  assert.ok(await until(async () => /fine-event for the undecodable test/.test((await rows.allInnerTexts()).join('\n'))),
    'the Event that decodes is listed');
  assert.ok(!/corrupted-event for the undecodable test/.test((await rows.allInnerTexts()).join('\n')));

  // The events informer is kept warm after the page is left: the X-ray page
  // names the object on its row.
  await page.getByTestId('nav-xray').click();
  const bad = page.getByTestId('xray-informer').filter({ hasText: '/api/v1/events' }).getByTestId('xray-undecodable');
  await bad.first().waitFor({ timeout: 10000 });
  assert.match(await bad.first().innerText(), new RegExp(`cannot read ${NS}/${BAD_EVENT}: invalid type`));
  assert.deepEqual(errors.filter((e) => !/Failed to load resource/.test(e)), [], 'no script errors');
});

test('a ConfigMap that stops decoding keeps its last good row, marked stale, until it is really deleted', async () => {
  const { page, errors } = browser;
  const url = proxy.url.replace(`:${PORT}/`, `:${FORWARD_PORT}/`);
  await page.goto(`${url}#/r/configmaps?ns=${NS}`);
  const table = page.locator(`[data-testid=resource-page][data-namespace="${NS}"]`);
  const rows = tableOf(table);
  const key = `${NS}/${VICTIM}`;
  // Listed, synced, and watched (the watch is open through the forwarder).
  assert.ok(await until(async () => (await rows.keys()).includes(key)
    && /^(\d+) of \1$/.test((await table.getByTestId('row-count').innerText()).trim())
    && watches.size > 0, 20000), 'the ConfigMap is listed and the table watches');
  assert.equal(await rows.row(key).getAttribute('data-stale'), null, 'not stale while it reads');

  // From now on its row does not decode; the watch ends with a 410, so the
  // table relists and the list names it as unreadable.
  breakVictim = true;
  assert.ok(expireWatches() >= 1, 'a watch was ended');
  assert.ok(await until(async () => (await rows.row(key).getAttribute('data-stale')) === 'true', 20000),
    'the row is marked stale after the relist');
  assert.ok(victimCorrupted >= 1, 'the relist read the corrupted row');
  assert.ok((await rows.keys()).includes(key), 'the row was not deleted');
  assert.match(await rows.row(key).getAttribute('title'), /^Stale: .*invalid type/);
  const problem = table.getByTestId('informer-error');
  assert.match(await problem.innerText(), new RegExp(`${key} \\(last good copy shown\\): invalid type`));
  // Still live: a ConfigMap created now arrives through the resumed watch.
  apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after-stale-cm', namespace: NS }, data: { a: '1' } });
  assert.ok(await until(async () => (await rows.keys()).includes(`${NS}/after-stale-cm`)), 'a new ConfigMap appears live');

  // The server really deletes it: the DELETED event (a row that reads) takes it away.
  kubectl('delete', 'configmap', VICTIM, '-n', NS);
  assert.ok(await until(async () => !(await rows.keys()).includes(key), 20000), 'the deleted ConfigMap goes');
  assert.ok(await until(async () => !(await problem.innerText().catch(() => '')).includes(key)),
    'the problem line no longer names it');
  assert.deepEqual(errors.filter((e) => !/Failed to load resource/.test(e)), [], 'no script errors');
});
