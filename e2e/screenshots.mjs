// Takes the screenshots in docs/screenshots/ (light and dark) from a running
// app: `node e2e/screenshots.mjs http://127.0.0.1:8001/ui/ docs/screenshots`
// after `make demo`. Uses Debian's Chromium, like the tests. SHOTS=logs,pods
// takes only those.
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from './chromium.mjs';

const [base = 'http://127.0.0.1:8001/ui/', out = 'docs/screenshots'] = process.argv.slice(2);
const views = [
  ['overview', '#/', 'server-version'],
  ['pods', '#/r/pods', 'resource-row'],
  ['crd-table', '#/r/databases.demo.kubeglass.dev', 'resource-row'],
  ['object', '#/o/deployments.apps/demo-shop/frontend', 'owned-link'],
  ['api', '#/api', 'api-resource'],
  ['events', '#/events', 'event-row'],
  ['logs', '#/logs/demo-shop/deployments.apps/cart?ts=1', 'log-line'],
  ['xray', '#/xray', 'xray-informer'],
];
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: [...CHROMIUM_FLAGS],
});
for (const scheme of ['light', 'dark']) {
  const page = await browser.newPage({ viewport: { width: 1360, height: 860 }, colorScheme: scheme });
  // X-ray shows what the overview left running: visit it first.
  await page.goto(`${base}#/`);
  await page.getByTestId('event-row').first().waitFor({ timeout: 30000 });
  const only = process.env.SHOTS?.split(',');
  for (const [name, hash, ready] of views.filter(([n]) => !only || only.includes(n))) {
    await page.goto(`${base}${hash}`);
    await page.getByTestId(ready).first().waitFor({ timeout: 30000 });
    await page.waitForTimeout(1200);
    const suffix = scheme === 'dark' ? '-dark' : '';
    await page.screenshot({ path: `${out}/${name}${suffix}.png` });
    console.log(`${out}/${name}${suffix}.png`);
  }
  if (only && !only.includes('palette')) { await page.close(); continue; }
  await page.keyboard.press(':');
  await page.getByTestId('palette-input').fill('d');
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${out}/palette${scheme === 'dark' ? '-dark' : ''}.png` });
  await page.close();
}
await browser.close();
