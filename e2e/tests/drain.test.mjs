// Drain, through the real path: a node of its own (kwok runs it, tainted so
// only this file's pods go there), a Deployment's three pods on it behind
// a PodDisruptionBudget that allows one at a time, and a DaemonSet's pod.
// The app cordons the node and evicts through the Eviction API: the
// budget makes the evictions wait their turn (the page says "waiting for
// budget"), the DaemonSet's pod stays, and kubectl agrees.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, startApp, launchBrowser, cleanUp, apply, kubectl, until } from '../lib.mjs';

const SUFFIX = `${Date.now() % 1000000}`;
const NODE = `e2e-drain-${SUFFIX}`;
const APP = `e2e-drain-${SUFFIX}`;
const NS = 'demo-shop';
const onNode = (selector) => kubectl('-n', NS, 'get', 'pods', '-l', selector, '--field-selector', `spec.nodeName=${NODE}`,
  '-o', 'jsonpath={.items[*].metadata.name}').split(' ').filter(Boolean);
const toleration = { key: 'e2e-drain', operator: 'Exists', effect: 'NoSchedule' };

const app = withApp({
  async setup() {
    apply({
      apiVersion: 'v1', kind: 'Node',
      metadata: { name: NODE, annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
        labels: { 'kubernetes.io/hostname': NODE, type: 'kwok' } },
      spec: { taints: [{ key: 'e2e-drain', value: SUFFIX, effect: 'NoSchedule' }] },
      status: { allocatable: { cpu: '32', memory: '128Gi', pods: '110' }, capacity: { cpu: '32', memory: '128Gi', pods: '110' } },
    });
    // Ready before the pods are scheduled: a node kwok has not yet made
    // Ready takes none, and its preferred pods go elsewhere for good (seen
    // once in CI: no pod on the node after 90 s).
    kubectl('wait', '--for=condition=Ready', `node/${NODE}`, '--timeout=60s');
    apply({
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name: APP, namespace: NS },
      spec: {
        replicas: 3, selector: { matchLabels: { app: APP } },
        template: {
          metadata: { labels: { app: APP } },
          spec: {
            tolerations: [toleration],
            // On the node while it may take pods; elsewhere once it is cordoned.
            affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100,
              preference: { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [NODE] }] } }] } },
            containers: [{ name: 'web', image: 'registry.example/e2e/drain:1' }],
          },
        },
      },
    });
    apply({
      apiVersion: 'policy/v1', kind: 'PodDisruptionBudget',
      metadata: { name: APP, namespace: NS },
      spec: { minAvailable: 2, selector: { matchLabels: { app: APP } } },
    });
    apply({
      apiVersion: 'apps/v1', kind: 'DaemonSet',
      metadata: { name: `${APP}-agent`, namespace: NS },
      spec: {
        selector: { matchLabels: { app: `${APP}-agent` } },
        template: {
          metadata: { labels: { app: `${APP}-agent` } },
          spec: { tolerations: [toleration], nodeSelector: { 'kubernetes.io/hostname': NODE },
            containers: [{ name: 'agent', image: 'registry.example/e2e/agent:1' }] },
        },
      },
    });
    const ready = await until(() => onNode(`app=${APP}`).length === 3 && onNode(`app=${APP}-agent`).length === 1
      && kubectl('-n', NS, 'get', 'pdb', APP, '-o', 'jsonpath={.status.disruptionsAllowed}') === '1', 90000, 500);
    assert.ok(ready, `not ready after 90 s: on ${NODE}: ${onNode(`app=${APP}`)} ${onNode(`app=${APP}-agent`)}`);
  },
  teardown() {
    cleanUp(
      ['-n', NS, 'delete', 'deployment', APP, '--ignore-not-found', '--wait=false'],
      ['-n', NS, 'delete', 'pdb', APP, '--ignore-not-found', '--wait=false'],
      ['-n', NS, 'delete', 'daemonset', `${APP}-agent`, '--ignore-not-found', '--wait=false'],
      ['delete', 'node', NODE, '--ignore-not-found', '--wait=false'],
    );
  },
});

test('a drain cordons the node, evicts the Deployment\'s pods as the budget allows, leaves the DaemonSet\'s, and kubectl agrees', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/o/nodes/${NODE}`);
  await page.getByTestId('drain-open').click();
  // Every state a pod's row passes through, as the page draws them.
  await page.evaluate(() => {
    window.drainSeen = new Set();
    new MutationObserver(() => {
      for (const r of document.querySelectorAll('[data-testid="drain-pod"]')) window.drainSeen.add(`${r.dataset.pod} ${r.dataset.state}`);
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-state'] });
  });
  page.once('dialog', (d) => d.accept());
  await page.getByTestId('drain-start').click();
  const end = page.getByTestId('drain-end');
  await end.waitFor({ timeout: 120000 });
  assert.equal(await end.getAttribute('data-state'), 'drained', await end.innerText());
  assert.match(await end.innerText(), /is drained: 3 pods evicted, 1 left alone/);

  const seen = [...await page.evaluate(() => [...window.drainSeen])];
  assert.ok(seen.some((s) => s.endsWith(' budget')), `a pod waited for the budget: ${seen.join(', ')}`);
  const rows = await page.getByTestId('drain-pod').evaluateAll((rs) => rs.map((r) => [r.dataset.pod, r.dataset.state]));
  assert.equal(rows.filter(([p, s]) => p.startsWith(`${NS}/${APP}-`) && !p.includes('agent') && s === 'gone').length, 3, JSON.stringify(rows));
  assert.deepEqual(rows.filter(([p]) => p.includes(`${APP}-agent`)).map(([, s]) => s), ['left']);

  // kubectl agrees: cordoned, none of the Deployment's pods left on it, the DaemonSet's still there.
  assert.equal(kubectl('get', 'node', NODE, '-o', 'jsonpath={.spec.unschedulable}'), 'true');
  assert.deepEqual(onNode(`app=${APP}`), []);
  assert.equal(onNode(`app=${APP}-agent`).length, 1);
  assert.ok(await until(() => kubectl('-n', NS, 'get', 'deployment', APP, '-o', 'jsonpath={.status.readyReplicas}') === '3', 30000),
    'the Deployment is whole again elsewhere');
  assert.ok(await until(() => kubectl('get', 'events', '-A', '--field-selector', `involvedObject.name=${NODE},reason=Drained`,
    '-o', 'jsonpath={.items[*].source.component}{.items[*].reportingComponent}').includes('kubeglass'), 20000), 'a Drained Event from kubeglass');

  await page.getByTestId('drain-uncordon').click();
  assert.ok(await until(() => kubectl('get', 'node', NODE, '-o', 'jsonpath={.spec.unschedulable}') === '', 20000), 'uncordoned');
  // The browser logs every refused answer: the budget's 429s and the 404s
  // of pods gone are the ones a drain expects; nothing else.
  assert.deepEqual(app.errors.filter((e) => !/status of (429 \(Too Many Requests\)|404 \(Not Found\))$/.test(e)), []);
});

test('the restricted user, who may not patch nodes or evict, is offered no Drain', async (t) => {
  const restricted = await startApp(process.env.RESTRICTED_KUBECONFIG);
  const browser = await launchBrowser();
  t.after(async () => {
    await browser.close();
    await restricted.stop();
  });
  await browser.page.goto(`${restricted.url}#/o/nodes/${NODE}`);
  await browser.page.getByTestId('drain-denied').waitFor({ state: 'attached' });
  assert.equal(await browser.page.getByTestId('drain-open').count(), 0);
});
