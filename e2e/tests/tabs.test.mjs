// Many tabs, one watch: three tabs of one cluster open the same pods
// table and the apiserver holds the watches of one tab only (its own
// request metrics say so); the others follow it over BroadcastChannel and
// send no watch of their own. Closing the tab that holds them hands the
// watches to another, which resumes from its version: no LIST at the
// apiserver, and the tables stay live.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  kubectl, startApp, launchBrowser, until, cleanUp, apiserverRequests, apiserverWatches, noNamespaceEnding,
} from '../lib.mjs';
import { table } from '../pages.mjs';

const NS = `tabs-${Date.now()}`;
const PODS = `/api/v1/namespaces/${NS}/pods`;
const run = (name) => kubectl('run', name, '-n', NS, '--image=registry.k8s.io/pause:3.10', '--restart=Never');

let app;
let browser;

before(async () => {
  kubectl('create', 'namespace', NS);
  for (const p of ['a', 'b']) run(p);
  app = await startApp();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await app?.stop();
  cleanUp(['delete', 'namespace', NS, '--ignore-not-found', '--wait=false']);
});

/** A tab of the app: its pods table, and the watches of PODS it has open itself. */
async function openTab(context) {
  const page = await context.newPage();
  const isWatch = (url) => {
    const u = new URL(url);
    return u.pathname === `/${app.token}${PODS}` && u.searchParams.get('watch') === 'true';
  };
  const tab = { page, pods: table(page), open: 0, asked: 0 };
  page.on('request', (r) => { if (isWatch(r.url())) { tab.open += 1; tab.asked += 1; } });
  page.on('requestfinished', (r) => { if (isWatch(r.url())) tab.open -= 1; });
  page.on('requestfailed', (r) => { if (isWatch(r.url())) tab.open -= 1; });
  page.on('websocket', (w) => {
    if (isWatch(w.url())) { tab.open += 1; tab.asked += 1; w.on('close', () => { tab.open -= 1; }); }
  });
  await page.goto(`${app.url}#/r/pods?ns=${NS}`);
  return tab;
}

const keys = async (tab) => (await tab.pods.keys()).sort().join(' ');
const shows = (tab, name) => until(async () => (await keys(tab)).includes(`${NS}/${name}`), 20000);

test('three tabs of one table: one watch at the apiserver; closing the holder keeps the others live with no LIST', async () => {
  await noNamespaceEnding();
  const before = apiserverWatches('pods');
  const context = browser.page.context();
  const first = await openTab(context);
  assert.ok(await shows(first, 'b'), await keys(first));
  // The table's watch and the usage columns' (once metrics answered).
  assert.ok(await until(() => first.open >= 2, 30000), `the first tab's watches: ${first.open}`);
  assert.ok(await until(() => apiserverWatches('pods') - before === first.open, 10000),
    `the apiserver's watches of pods: ${apiserverWatches('pods') - before}, the first tab's ${first.open}`);
  const held = first.open;

  const second = await openTab(context);
  const third = await openTab(context);
  for (const t of [second, third]) assert.ok(await shows(t, 'b'), await keys(t));
  // Each follower's usage columns start once its metrics poll answered;
  // then a change reaches every tab.
  run('c');
  for (const t of [first, second, third]) assert.ok(await shows(t, 'c'), await keys(t));
  assert.equal(second.asked + third.asked, 0, 'the other tabs asked for no watch of pods');
  assert.equal(apiserverWatches('pods') - before, held, 'the apiserver holds the first tab\'s watches only');

  // The holder goes: another tab takes each watch over from its version.
  await noNamespaceEnding();
  const listsBefore = apiserverRequests('LIST', 'pods');
  await first.page.close();
  assert.ok(await until(() => second.open + third.open === held, 20000),
    `watches taken over: ${second.open} + ${third.open}, the first tab held ${held}`);
  run('d');
  for (const t of [second, third]) assert.ok(await shows(t, 'd'), await keys(t));
  assert.ok(await until(() => apiserverWatches('pods') - before === held, 20000),
    `the apiserver's watches of pods: ${apiserverWatches('pods') - before}, ${held} expected`);
  assert.equal(apiserverRequests('LIST', 'pods') - listsBefore, 0, 'LISTs of pods at the apiserver');
  // X-ray says who holds each watch: the namespaces' (every page's) was
  // the first tab's, and now one of the others holds it (whichever asked
  // for the lock first) while the other follows.
  const roles = [];
  for (const t of [second, third]) {
    await t.page.goto(`${app.url}#/xray`);
    const namespaces = t.page.getByTestId('xray-shared')
      .filter({ has: t.page.locator('code', { hasText: /^\/api\/v1\/namespaces$/ }) });
    await namespaces.waitFor({ timeout: 10000 });
    roles.push(await namespaces.getAttribute('data-role'));
  }
  assert.deepEqual(roles.sort(), ['following', 'holding'], `the namespaces' watch in the two tabs: ${roles}`);
  await second.page.close();
  await third.page.close();
});
