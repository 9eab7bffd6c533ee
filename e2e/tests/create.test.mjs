// Create from YAML against the real cluster: two documents (a ConfigMap and a
// CRD instance) reviewed by the server's dry run and created; a batch with a
// bad document creates nothing and names the field at its line, unless the
// person chooses to go on; a LimitRange's defaults show as the server's; a
// user who may create nothing has no Create.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, cleanUp, apply, kubectl, until, startApp, launchBrowser } from '../lib.mjs';
import { createPage, editor, frame } from '../pages.mjs';

const SUFFIX = Date.now() % 1000000;
const CM = `e2e-create-cm-${SUFFIX}`;
const DB = `e2e-create-db-${SUFFIX}`;
const NS = `e2e-create-${SUFFIX}`;

const app = withApp({
  teardown() {
    cleanUp(
      ['-n', 'demo-shop', 'delete', 'configmap', CM, `${CM}-2`, `${CM}-3`, '--ignore-not-found'],
      ['-n', 'demo-data', 'delete', 'database', DB, '--ignore-not-found'],
      ['delete', 'namespace', NS, '--ignore-not-found', '--wait=false'],
    );
  },
});

const exists = (ns, kind, name) => {
  try { kubectl('-n', ns, 'get', kind, name, '-o', 'name'); return true; } catch { return false; }
};

/** Each document's label and state once every answer is in. */
async function reviewed(page, n) {
  await editor(page, 'create').review();
  assert.ok(await until(async () => {
    const states = await createPage(page).states();
    return states.length === n && !states.includes('asking');
  }, 15000), 'every document answered');
  return createPage(page).documents();
}

const configMap = (name, extra = '') => `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: demo-shop
data:
  greeting: hello${extra}
`;
const database = (name, engine) => `apiVersion: demo.kubeglass.dev/v1alpha1
kind: Database
metadata:
  name: ${name}
  namespace: demo-data
spec:
  engine: ${engine}
  version: "17"
  sizeGiB: 5
  replicas: 1
`;

test('create: a ConfigMap and a CRD instance are reviewed by a dry run, then created, each recorded', async () => {
  const { page } = app;
  const create = createPage(page);
  const ed = editor(page, 'create');
  await create.open(app.url);
  await ed.text().fill(`${configMap(CM)}---\n${database(DB, 'postgres')}`);
  assert.deepEqual(await reviewed(page, 2), [`ConfigMap demo-shop/${CM}: ok`, `Database demo-data/${DB}: ok`]);
  // The dry run wrote nothing.
  assert.ok(!exists('demo-shop', 'configmap', CM) && !exists('demo-data', 'database', DB), 'nothing written by Review');
  const rows = await create.fields();
  assert.ok(rows.some((r) => /^data\.greeting\s+—\s+hello/.test(r)), `the review lists the fields: ${rows}`);
  await ed.apply();
  assert.ok(await until(async () => (await create.outcomeStates()).every((s) => s === 'created'), 15000),
    `created: ${await create.outcomes().allInnerTexts()}`);
  assert.ok(exists('demo-shop', 'configmap', CM) && exists('demo-data', 'database', DB), 'both exist');
  assert.equal(kubectl('-n', 'demo-shop', 'get', 'configmap', CM, '-o', 'jsonpath={.data.greeting}'), 'hello');
  assert.ok(await until(() => kubectl('-n', 'demo-shop', 'get', 'events', '--field-selector', `involvedObject.name=${CM},reason=Created`, '-o', 'name').trim() !== '', 10000),
    'a Created event from kubeglass');
  assert.deepEqual(app.errors, []);
});

test('create: a bad document creates nothing of its batch and is named at its line, unless going on', async () => {
  const { page } = app;
  const create = createPage(page);
  const ed = editor(page, 'create');
  await create.open(app.url);
  await ed.text().fill(`${configMap(`${CM}-2`)}---\n${database(`${DB}-bad`, 'oracle')}`);
  assert.deepEqual(await reviewed(page, 2), [`ConfigMap demo-shop/${CM}-2: ok`, `Database demo-data/${DB}-bad: refused`]);
  const cause = await create.causes();
  // The engine is on line 7 of the second document, line 15 of the text.
  assert.ok(cause.some((c) => /^line 15: spec\.engine: Unsupported value: "oracle"/.test(c)), `the field and its line: ${cause}`);
  assert.ok(await create.applyDisabled(), 'Create waits while one fails');
  assert.ok(!exists('demo-shop', 'configmap', `${CM}-2`), 'nothing created');
  await create.goOn();
  await ed.apply();
  await create.outcome('created').waitFor({ timeout: 15000 });
  assert.equal(await create.outcomes().count(), 1, 'only the good one was sent');
  assert.ok(exists('demo-shop', 'configmap', `${CM}-2`) && !exists('demo-data', 'database', `${DB}-bad`));

  // Text that does not read says where.
  await ed.text().fill('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: [x\n');
  await ed.review();
  assert.match(await create.unreadable(), /line \d+, column \d+/);
  // The browser logs the refused dry run (422) itself; nothing else went wrong.
  assert.deepEqual(app.errors.filter((e) => !/status of 422/.test(e)), []);
});

test('create: in a namespace with a LimitRange, a pod dry run shows the defaulted resources as the server\'s', async () => {
  kubectl('create', 'namespace', NS);
  apply({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'defaults', namespace: NS },
    spec: { limits: [{ type: 'Container', default: { cpu: '300m', memory: '64Mi' }, defaultRequest: { cpu: '100m', memory: '32Mi' } }] } });
  const { page } = app;
  const create = createPage(page);
  const ed = editor(page, 'create');
  await create.open(app.url);
  await ed.text().fill(`apiVersion: v1
kind: Pod
metadata:
  name: e2e-limits
  namespace: ${NS}
spec:
  containers:
  - name: c
    image: registry.example/e2e/limits:1
`);
  assert.deepEqual(await reviewed(page, 1), [`Pod ${NS}/e2e-limits: ok`]);
  const server = await create.fields('server');
  assert.ok(server.some((r) => /^spec\.containers\[0\]\.resources\.limits\.cpu\s+—\s+300m/.test(r)), `the LimitRange's default, marked: ${server}`);
  assert.ok(server.some((r) => /^spec\.containers\[0\]\.resources\.requests\.memory\s+—\s+32Mi/.test(r)), `${server}`);
  const yours = await create.fields('you');
  assert.ok(yours.some((r) => /^spec\.containers\[0\]\.image/.test(r)), `the image is yours: ${yours}`);
  assert.ok(!exists(NS, 'pod', 'e2e-limits'), 'a dry run only');
});

test('create: a user who may create nothing has no Create link', async (t) => {
  const { page } = app;
  await page.goto('about:blank');
  await page.goto(`${app.url}#/`);
  await frame(page).nav('create').waitFor({ timeout: 15000 });
  const restricted = await startApp(process.env.RESTRICTED_KUBECONFIG);
  const browser = await launchBrowser();
  t.after(async () => {
    await browser.close();
    await restricted.stop();
  });
  await browser.page.goto(`${restricted.url}#/`);
  await frame(browser.page).nav('changes').waitFor({ timeout: 20000 });
  // The rules review answered no.
  await createPage(browser.page).denied().waitFor({ state: 'attached', timeout: 20000 });
  assert.equal(await frame(browser.page).nav('create').count(), 0, 'no Create for the restricted user');
});
