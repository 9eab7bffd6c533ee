// How the app loads: the first page from the main wasm alone with the
// other parts in the background (and a part that fails to load), the
// preloads answered once, and a deep link's page first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, kubectl, until } from '../lib.mjs';
import { frame } from '../pages.mjs';

const app = withApp();

test('the first page is drawn from the main wasm alone; the other parts follow in the background, and one that fails to load says so and loads on Retry', async (t) => {
  const { page } = app;
  const wasms = [];
  const seen = (r) => { if (new URL(r.url()).pathname.endsWith('.wasm')) wasms.push(new URL(r.url()).pathname.split('/').pop()); };
  const parts = () => wasms.filter((w) => /^(split|chunk)_/.test(w));
  // Top's part cannot be fetched, as when the server stopped or the app was
  // rebuilt under the open tab.
  const topPart = /\/split_top-[0-9a-f]{16}\.wasm$/;
  await page.route(topPart, (r) => r.abort());
  // When the version first shows, in the page's own clock.
  await page.addInitScript(() => {
    new MutationObserver((_, observer) => {
      if (document.querySelector('[data-testid="server-version"]')?.textContent?.trim()) {
        window.versionDrawnAt = performance.now();
        observer.disconnect();
      }
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  page.on('request', seen);
  t.after(async () => {
    page.off('request', seen);
    await page.unroute(topPart).catch(() => {});
  });
  // A fresh document: the overview.
  await page.goto('about:blank');
  await page.goto(`${app.url}#/`);
  await frame(page).ready();
  assert.equal(wasms.filter((w) => /^kubeglass-[0-9a-f]{16}_bg\.wasm$/.test(w)).length, 1, `the main module: ${wasms}`);
  // Every other part comes in the background, none before the version
  // was on screen: here X-ray's and the resource tables', unasked.
  for (const name of ['xray', 'resource']) {
    assert.ok(await until(async () => wasms.some((w) => w.startsWith(`split_${name}-`)), 30000, 100), `${name}'s part in the background: ${parts()}`);
  }
  const { drawnAt, starts } = await page.evaluate(() => ({
    drawnAt: window.versionDrawnAt,
    starts: performance.getEntriesByType('resource')
      .filter((r) => /\/(split|chunk)_[^/]*\.wasm$/.test(r.name))
      .map((r) => [r.name.split('/').pop(), r.startTime]),
  }));
  assert.ok(drawnAt > 0, 'the version was seen drawn');
  const early = starts.filter(([, t]) => t < drawnAt);
  assert.deepEqual(early, [], `parts asked for before the version was drawn at ${drawnAt} ms`);
  // Top: its part failed in the background; the page says so in one line,
  // with a Retry, and the rest of the app goes on.
  const errorsBefore = app.errors.length;
  await page.evaluate(() => { location.hash = '#/top'; });
  const failed = page.getByTestId('part-error');
  await failed.waitFor({ timeout: 20000 });
  assert.match(await failed.innerText(), /This page's code did not load \(.+\)\..*retry, or reload the tab/);
  assert.ok(wasms.some((w) => /^split_top-/.test(w)), `Top's part was asked for: ${parts()}`);
  assert.equal(await page.getByTestId('nav-overview').count(), 1, 'the top bar is still there');
  // The loader logged the failed fetch; nothing else went wrong.
  assert.ok(app.errors.slice(errorsBefore).every((e) => /Failed to fetch|ERR_FAILED|TypeError/.test(e)), app.errors.slice(errorsBefore).join('\n'));
  app.errors.splice(errorsBefore);
  // The server is back: Retry draws Top.
  await page.unroute(topPart);
  await page.getByTestId('part-retry').click();
  await page.getByTestId('top-page').waitFor({ timeout: 20000 });
  assert.equal(await failed.count(), 0);
  // X-ray's part came in the background: its page is drawn without a wait.
  await page.getByTestId('nav-xray').click();
  await page.getByTestId('xray-page').waitFor({ timeout: 20000 });
  assert.equal(await page.getByTestId('part-loading').count(), 0);
});

test('the session file and the server version, which the first page waits for, are each asked for once, by the page\'s preloads, and the app takes those answers', async (t) => {
  const { page } = app;
  const asked = [];
  const seen = (r) => asked.push({ path: new URL(r.url()).pathname + new URL(r.url()).search, type: r.resourceType() });
  page.on('request', seen);
  t.after(async () => { page.off('request', seen); });
  await page.goto('about:blank');
  await page.goto(`${app.url}#/`);
  await frame(page).ready();
  // The app has started and read both: the overview counts pods.
  await page.waitForFunction(() => /^\d+$/.test(document.querySelector('[data-testid="pod-count"]')?.textContent ?? ''), null, { timeout: 20000 });
  const of = (re) => asked.filter((r) => re.test(r.path));
  const session = of(/\/kubeglass-context\.json(\?|$)/);
  const version = of(/\/version(\?|$)/);
  // One request each: the preload's. Had the app's own fetch not matched
  // it, the app would have asked again.
  assert.equal(session.length, 1, `the session file: ${JSON.stringify(session)}`);
  assert.equal(version.length, 1, `the version: ${JSON.stringify(version)}`);
  // And that one was the page's <link rel=preload>, not the app's fetch.
  const initiators = await page.evaluate(() => performance.getEntriesByType('resource')
    .filter((r) => /\/(kubeglass-context\.json|version)$/.test(new URL(r.name).pathname))
    .map((r) => `${new URL(r.name).pathname.split('/').pop()} ${r.initiatorType}`).sort());
  assert.deepEqual(initiators, ['kubeglass-context.json link', 'version link']);
  // And the app drew what they answered: the version is the server's.
  const server = JSON.parse(kubectl('version', '-o', 'json')).serverVersion.gitVersion;
  assert.equal(await frame(page).version(), server);
});

test('on a deep link, the other pages\' parts wait until the page in front has its first lists in', async () => {
  const { page } = app;
  // The browser keeps 250 resource timings by default: the app's 270-odd
  // wasm files and its requests overflow it, and the last parts (X-ray's
  // among them) were never recorded.
  await page.addInitScript(() => performance.setResourceTimingBufferSize(5000));
  await page.goto('about:blank');
  await page.goto(`${app.url}#/events`);
  await page.getByTestId('event-row').first().waitFor({ timeout: 20000 });
  // Another page's part comes in the background, unasked: the last of them.
  await page.waitForFunction(() => performance.getEntriesByType('resource').some((r) => /\/split_xray-[0-9a-f]{16}\.wasm$/.test(r.name)), null, { timeout: 30000 });
  const { lists, others } = await page.evaluate(() => {
    const all = performance.getEntriesByType('resource');
    return {
      // The event stream's LIST (every page of it), not its watch.
      lists: all.filter((r) => /\/v1\/events\?/.test(r.name) && !/[?&]watch=/.test(r.name)).map((r) => r.responseEnd),
      others: all.filter((r) => /\/split_(?!events-)\w+-[0-9a-f]{16}\.wasm$/.test(r.name)).map((r) => [r.name.split('/').pop(), r.startTime]),
    };
  });
  assert.ok(lists.length > 0, 'the event stream listed');
  assert.ok(others.length > 0, 'other parts came');
  const listed = Math.max(...lists);
  const early = others.filter(([, t]) => t < listed);
  assert.deepEqual(early, [], `parts asked for before the events' list was in at ${listed.toFixed(0)} ms`);
});
