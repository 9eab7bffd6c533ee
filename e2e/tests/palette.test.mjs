// The command palette, and back and forward.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, until } from '../lib.mjs';
import { frame, palette } from '../pages.mjs';

const app = withApp();

test('the command palette jumps by short name, and back and forward work', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/`);
  await frame(page).ready();
  const run = async (line) => {
    await page.getByTestId('palette').waitFor({ state: 'detached', timeout: 10000 });
    await palette(page).run(line);
  };
  await run('db');
  assert.ok(await until(async () => page.url().includes('#/r/databases.demo.kubeglass.dev'), 10000));
  assert.match(page.url(), /#\/r\/databases\.demo\.kubeglass\.dev/);
  await page.getByTestId('resource-kind').filter({ hasText: 'Database' }).waitFor({ timeout: 10000 });
  await run('deploy kube-system');
  assert.ok(await until(async () => page.url().includes('#/r/deployments.apps?ns=kube-system'), 10000));
  assert.match(page.url(), /ns=kube-system/);
  await run('nosuchthing');
  await page.getByTestId('palette-error').waitFor({ timeout: 10000 });
  await palette(page).input().press('Escape');
  await page.goBack();
  assert.ok(await until(async () => page.url().includes('#/r/databases'), 5000));
  assert.match(page.url(), /#\/r\/databases/);
  await page.getByTestId('resource-kind').filter({ hasText: 'Database' }).waitFor({ timeout: 10000 });
  await page.goForward();
  assert.ok(await until(async () => page.url().includes('ns=kube-system'), 5000));
  assert.match(page.url(), /ns=kube-system/);
});
