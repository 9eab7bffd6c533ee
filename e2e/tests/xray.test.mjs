// The X-ray page: the informers at work and the connections by kind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, until, ARTIFACTS } from '../lib.mjs';
import { xray } from '../pages.mjs';

const app = withApp();

test('X-ray shows the informers at work and the connections by kind', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/`);
  await page.getByTestId('event-row').first().waitFor({ timeout: 20000 });
  await page.getByTestId('nav-xray').click();
  // The overview's event informer (whole objects over WebSocket) is kept warm
  // for a minute after the overview is left.
  const x = xray(page);
  const events = x.informer('/api/v1/events');
  await events.waitFor({ timeout: 10000 });
  assert.match(await events.innerText(), /watching/);
  assert.ok(await x.count('websockets') >= 1, 'watches over WebSocket');
  // The action queue (work queue metrics under client-go's names) is listed.
  assert.match(await x.queues(), /user-actions/);
  // Each view's frame queue too, kept (and said so) after its view closed.
  assert.ok(await until(async () => /event-rows\s+frames · view closed/.test(await x.queues()), 5000),
    'the overview\'s event-rows frame queue, closed');
  assert.ok(await x.count('streams') <= 4, 'at most 4 long-lived fetch streams');
  await page.screenshot({ path: `${ARTIFACTS}/xray.png` });
});
