// Object pages and the overview fit the screen at 1024 and 1360 px.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, apply, kubectl, ARTIFACTS, cleanUp } from '../lib.mjs';

const SUFFIX = `${Date.now() % 1000000}`;
const LONG = `e2e-long-${SUFFIX}`;

const app = withApp({
  teardown() {
    cleanUp(
      ['-n', 'demo-shop', 'delete', 'configmap', LONG, '--ignore-not-found'],
    );
  },
});

test('object pages and the overview fit the screen at 1024 and 1360 px: nothing runs off the right edge', async () => {
  const { page } = app;
  // kubectl apply keeps a copy of the object in a long annotation.
  apply({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: LONG, namespace: 'demo-shop',
    labels: { app: 'e2e' }, annotations: { note: 'x'.repeat(400) } },
  data: { big: 'y'.repeat(2000), line: `${'a-very-long-unbroken-value-'.repeat(20)}` } });
  const pod = kubectl('-n', 'demo-shop', 'get', 'pods', '-o', 'jsonpath={.items[0].metadata.name}');
  const pages = [
    [`#/o/deployments.apps/demo-shop/frontend`, 'condition'],
    [`#/o/pods/demo-shop/${pod}`, 'condition'],
    [`#/o/configmaps/demo-shop/${LONG}`, 'annotations-chip'],
    ['#/', 'deployment-row'],
  ];
  const offenders = () => page.evaluate(() => {
    const w = document.documentElement.clientWidth;
    const bad = [];
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.right <= w + 1) continue;
      // Inside a box that scrolls or clips it within the screen, it does not run off it.
      let p = el.parentElement;
      let held = false;
      while (p && p !== document.body) {
        if (/(auto|scroll|hidden|clip)/.test(getComputedStyle(p).overflowX) && p.getBoundingClientRect().right <= w + 1) {
          held = true;
          break;
        }
        p = p.parentElement;
      }
      if (!held) bad.push(`<${el.tagName.toLowerCase()} class="${el.className}" data-testid="${el.dataset.testid ?? ''}"> right ${Math.round(r.right)} > ${w}`);
    }
    return { bad: bad.slice(0, 8), scrollWidth: document.documentElement.scrollWidth, width: w };
  });
  for (const width of [1024, 1360]) {
    await page.setViewportSize({ width, height: 900 });
    for (const [hash, ready] of pages) {
      await page.goto(`${app.url}${hash}`);
      await page.getByTestId(ready).first().waitFor({ timeout: 20000 });
      if (hash.startsWith('#/o/')) await page.getByTestId('yaml').filter({ hasText: 'metadata:' }).waitFor({ timeout: 20000 });
      const { bad, scrollWidth, width: w } = await offenders();
      assert.deepEqual(bad, [], `${hash} at ${width}px`);
      assert.ok(scrollWidth <= w, `${hash} at ${width}px: the page scrolls sideways (${scrollWidth} > ${w})`);
    }
    await page.screenshot({ path: `${ARTIFACTS}/object-${width}.png` });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
});
