// The change timeline (#/changes) against the real cluster: kubectl's writes
// and the controllers' answers as rows with their managers and summaries,
// status-only updates folded, a row's diff, the filters, pause, a Warning
// event between the changes, and what was there before it opened is not a row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, cleanUp, apply, deployment, kubectl, until } from '../lib.mjs';
import { changes, xray } from '../pages.mjs';

const SUFFIX = Date.now() % 1000000;
const NAME = `e2e-changes-${SUFFIX}`;
const CM = `e2e-changes-cm-${SUFFIX}`;

const app = withApp({
  teardown() {
    cleanUp(
      ['-n', 'demo-shop', 'delete', 'deployment', NAME, '--ignore-not-found', '--wait=false'],
      ['-n', 'demo-shop', 'delete', 'configmap', CM, '--ignore-not-found'],
      ['-n', 'demo-shop', 'delete', 'event', `${NAME}.warning`, '--ignore-not-found'],
    );
  },
});

test('changes: a create, a scale, a label and a delete are rows with their managers; what was there before is not', async () => {
  const { page } = app;
  const ch = changes(page);
  await ch.open(app.url);
  assert.match(await ch.since(), /^Recording since \d\d:\d\d:\d\d, when this page was first opened in this tab\./);
  // What was there before is the starting point: no node, Service or
  // ConfigMap of the demo is 'added' (the demo's pods may really change
  // meanwhile, after earlier tests, so only these stable objects are read).
  const stable = /^added \| (Node \| kwok-node-\d|Service \| default\/kubernetes|ConfigMap \| demo-shop\/feature-flags|Deployment \| demo-shop\/checkout) \|/;
  await ch.count().waitFor();
  assert.ok(!(await ch.texts()).some((r) => stable.test(r)), `no row for what was there: ${await ch.texts()}`);

  apply(deployment(NAME, 'registry.example/e2e/changes:1'));
  const has = async (re) => (await ch.texts()).some((r) => re.test(r));
  assert.ok(await until(() => has(new RegExp(`^added \\| Deployment \\| demo-shop/${NAME} \\| .*kubectl.* \\| created$`)), 20000), `added: ${await ch.texts()}`);
  kubectl('-n', 'demo-shop', 'scale', 'deployment', NAME, '--replicas=2');
  assert.ok(await until(() => has(new RegExp(`^updated \\| Deployment \\| demo-shop/${NAME} \\| kubectl \\(scale\\) \\| spec\\.replicas 1 → 2`)), 20000),
    `the scale: ${await ch.texts()}`);
  // The controller's answer: a ReplicaSet scaled by kube-controller-manager.
  assert.ok(await until(() => has(new RegExp(`^updated \\| ReplicaSet \\| demo-shop/${NAME}-\\w+ \\| kube-controller-manager \\| .*spec\\.replicas 1 → 2`)), 20000),
    `the ReplicaSet follows: ${await ch.texts()}`);
  kubectl('-n', 'demo-shop', 'create', 'configmap', CM, '--from-literal=a=1');
  kubectl('-n', 'demo-shop', 'label', 'configmap', CM, 'team=changes-probe');
  kubectl('-n', 'demo-shop', 'delete', 'configmap', CM);
  assert.ok(await until(async () => {
    const r = (await ch.texts()).filter((x) => x.includes(`demo-shop/${CM}`));
    return r.length === 3 && /^deleted/.test(r[0]) && /^updated .* kubectl-label \| metadata\.labels.*changes-probe/.test(r[1]) && /^added/.test(r[2]);
  }, 20000), `create, label, delete, newest first: ${(await ch.texts()).filter((x) => x.includes(CM))}`);
  // The X-ray page counts what the recording holds (same tab: the hash changes).
  const kept = Number((await ch.count().innerText()).match(/of (\d+) changes/)[1]);
  await page.goto(`${app.url}#/xray`);
  const held = xray(page).timeline();
  await held.waitFor();
  const [, n] = (await held.innerText()).match(/^(\d+) rows, [\d.]+ MiB of diffs \(at most 10000 rows and 8 MiB\), 0 dropped$/) ?? [];
  assert.ok(Number(n) >= kept, `${await held.innerText()} (the page had ${kept})`);
  assert.deepEqual(app.errors, []);
});

test('changes: status-only updates fold behind a toggle, a row opens its diff, and the filters narrow', async () => {
  apply(deployment(NAME, 'registry.example/e2e/changes:1'));
  const { page } = app;
  const ch = changes(page);
  await ch.open(app.url);
  const status = new RegExp(`Deployment \\| demo-shop/${NAME} \\| kube-controller-manager \\(status\\) \\| status\\.`);
  kubectl('-n', 'demo-shop', 'scale', 'deployment', NAME, '--replicas=3');
  // The Deployment's status moves too (kwok runs the pods), folded by default.
  await ch.countSays(/status-only updates folded/, 20000);
  assert.ok(!(await ch.texts()).some((r) => status.test(r)), 'status-only rows are folded');
  await ch.statusOnly().check();
  assert.ok(await until(async () => (await ch.texts()).some((r) => status.test(r)), 10000), `shown with the toggle: ${await ch.texts()}`);
  await ch.statusOnly().uncheck();

  // The scale's row opens its diff.
  const scale = ch.row(`demo-shop/${NAME}`).filter({ hasText: 'spec.replicas 1 → 3' });
  await scale.first().click();
  const diff = ch.diff();
  await diff.first().waitFor({ timeout: 5000 });
  assert.ok((await diff.allInnerTexts()).some((d) => /^spec\.replicas\s+1\s+3$/.test(d)), `the diff: ${await diff.allInnerTexts()}`);

  // Manager, kind and text filters; a bad pattern says why.
  await ch.manager('scale');
  assert.ok(await until(async () => {
    const r = await ch.texts();
    return r.length > 0 && r.every((x) => /kubectl \(scale\)/.test(x));
  }, 5000), `only kubectl (scale): ${await ch.texts()}`);
  await ch.manager('');
  await ch.kind('ReplicaSet');
  assert.ok(await until(async () => (await ch.texts()).every((x) => /^\w+ \| ReplicaSet \|/.test(x)), 5000), `only ReplicaSets: ${await ch.texts()}`);
  await ch.kind('');
  await ch.filter('/replicas (/');
  await ch.filterError().waitFor({ timeout: 5000 });
  assert.equal(await ch.rows().count(), 0, 'a bad pattern passes nothing');
  await ch.filter(`/^ReplicaSet demo-shop/${NAME}-/`);
  assert.ok(await until(async () => (await ch.texts()).length > 0 && (await ch.texts()).every((x) => /ReplicaSet/.test(x)), 5000), `${await ch.texts()}`);
  await ch.filter('');
  assert.deepEqual(app.errors, []);
});

test('changes: pause holds the rows and counts what arrives; a Warning event is a row between the changes', async () => {
  apply(deployment(NAME, 'registry.example/e2e/changes:1'));
  const { page } = app;
  const ch = changes(page);
  await ch.open(app.url);
  await ch.pause();
  const before = await ch.texts();
  kubectl('-n', 'demo-shop', 'annotate', 'deployment', NAME, `kubeglass.dev/probe=${SUFFIX}`);
  await ch.countSays(/paused: [1-9]\d* arrived/, 20000);
  assert.deepEqual(await ch.texts(), before, 'nothing new while paused');
  await ch.pause();
  assert.ok(await until(async () => (await ch.texts()).some((r) => r.includes('kubeglass.dev/probe')), 10000), 'shown after resume');

  const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  apply({
    apiVersion: 'v1', kind: 'Event', type: 'Warning', reason: 'E2EProbeFailed', message: 'the probe said no',
    metadata: { name: `${NAME}.warning`, namespace: 'demo-shop' },
    involvedObject: { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'demo-shop', name: NAME },
    source: { component: 'e2e-prober' }, count: 1, firstTimestamp: now, lastTimestamp: now,
  });
  assert.ok(await until(async () => (await ch.texts()).some((r) => r === `warning | Deployment | demo-shop/${NAME} | e2e-prober | E2EProbeFailed: the probe said no`), 20000),
    `the warning: ${await ch.texts()}`);
  // Its object is a link to the Deployment's page.
  const warning = ch.row('E2EProbeFailed', 'warning');
  assert.equal(await warning.locator('a').getAttribute('href'), `#/o/deployments.apps/demo-shop/${NAME}`);

  // Secrets are never recorded; a kind the server lacks says so.
  await ch.openKinds();
  await ch.addKind('secrets');
  await ch.kindSays('Secrets are never recorded', 10000);
  await ch.addKind('nosuchkinds');
  await ch.kindSays('no resource called “nosuchkinds”', 10000);
  assert.deepEqual(app.errors, []);
});

test('changes: a kubectl set image shows the Deployment, the ReplicaSet it makes and the pods that follow, in order, each with its diff; the demo\'s unschedulable pod warns', async () => {
  apply(deployment(NAME, 'registry.example/e2e/changes:1'));
  const { page } = app;
  const ch = changes(page);
  await ch.open(app.url);
  kubectl('-n', 'demo-shop', 'set', 'image', `deployment/${NAME}`, 'c=registry.example/e2e/changes:2');
  const image = new RegExp(`Deployment\\s*demo-shop/${NAME}\\s*kubectl-set\\s*spec\\.template\\.spec\\.containers\\[0\\]\\.image registry\\.example/e2e/changes:1 → registry\\.example/e2e/changes:2`);
  const newSet = new RegExp(`added\\s*ReplicaSet\\s*demo-shop/${NAME}-`);
  const newPod = new RegExp(`added\\s*Pod\\s*demo-shop/${NAME}-`);
  assert.ok(await until(async () => (await ch.seqs(image)).length === 1 && (await ch.seqs(newSet)).length === 1 && (await ch.seqs(newPod)).length >= 1, 20000),
    `the rollout's rows: ${await ch.texts()}`);
  const [d] = await ch.seqs(image);
  const [r] = await ch.seqs(newSet);
  const p = Math.min(...await ch.seqs(newPod));
  assert.ok(d < r && r < p, `Deployment (${d}), then its ReplicaSet (${r}), then a pod (${p})`);
  // Each opens its diff (an added object shows what it is).
  await ch.row(image).click();
  assert.ok((await ch.diff().allInnerTexts()).some((t) => /^spec\.template\.spec\.containers\[0\]\.image\s+registry\.example\/e2e\/changes:1\s+registry\.example\/e2e\/changes:2$/.test(t)));
  await ch.row(newSet).click();
  assert.match(await ch.detail(), new RegExp(`ReplicaSet demo-shop/${NAME}-\\S+ added`));

  // The demo's gpu-trainer cannot be scheduled: a second pod warns at once.
  kubectl('-n', 'demo-data', 'scale', 'deployment/gpu-trainer', '--replicas=2');
  try {
    assert.ok(await until(async () => (await ch.texts()).some((x) => /^warning \| Pod \| demo-data\/gpu-trainer-\S+ \| default-scheduler \| FailedScheduling: /.test(x)), 30000),
      `the scheduler's warning: ${(await ch.texts()).filter((x) => x.startsWith('warning'))}`);
  } finally {
    kubectl('-n', 'demo-data', 'scale', 'deployment/gpu-trainer', '--replicas=1');
  }
  assert.deepEqual(app.errors, []);
});
