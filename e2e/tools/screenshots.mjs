// Takes the screenshots in docs/screenshots/ (light and dark) from a running
// app: `node e2e/tools/screenshots.mjs http://127.0.0.1:8001/ui/ docs/screenshots`
// after `make demo`. Uses Debian's Chromium, like the tests. SHOTS=logs,pods
// takes only those (Top waits for a few polls of history). The scenes that change the cluster (the timeline,
// History, an edit's review and conflict, create) run KUBECTL (default
// `kubectl`) with the environment's KUBECONFIG, on the demo's `frontend`.
import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from '../chromium.mjs';

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
  ['map', '#/map/deployments.apps/demo-shop/frontend', 'map-node'],
  ['map-namespace', '#/map', 'map-node'],
  ['custom-columns', `#/r/pods?ns=demo-shop&c=${encodeURIComponent('IMAGE:.spec.containers[*].image,NODE:.spec.nodeName,QOS:.status.qosClass')}`, 'resource-row'],
];
const kubectl = (...args) => execFileSync(process.env.KUBECTL ?? 'kubectl', args, { encoding: 'utf8' });
const replicas = () => Number(kubectl('-n', 'demo-shop', 'get', 'deployment', 'frontend', '-o', 'jsonpath={.spec.replicas}'));
const FRONTEND = '#/o/deployments.apps/demo-shop/frontend';
/** A running pod of frontend. */
const frontendPod = () => kubectl('-n', 'demo-shop', 'get', 'pods', '-l', 'app=frontend', '--field-selector', 'status.phase=Running',
  '-o', 'jsonpath={.items[0].metadata.name}');

/** Opens frontend's editor with replicas one more than now. */
async function editReplicas(page) {
  await page.goto(`${base}${FRONTEND}`);
  await page.getByTestId('action-edit').click({ timeout: 30000 });
  const text = page.getByTestId('edit-text');
  const now = replicas();
  await text.fill((await text.inputValue()).replace(/^  replicas: \d+$/m, `  replicas: ${now + 1}`));
  return text;
}

// What a scene leaves to undo once its picture is taken.
const afterShot = [];

// Scenes that act first: each leaves the page as its picture shows it.
const scenes = [
  ['changes', async (page) => {
    await page.goto(`${base}#/changes`);
    await page.locator('[data-testid=changes-kind][data-kind=Deployment]').filter({ hasText: 'recording' })
      .waitFor({ state: 'attached', timeout: 30000 });
    kubectl('-n', 'demo-shop', 'scale', 'deployment/frontend', `--replicas=${replicas() + 1}`);
    const row = page.locator('[data-testid=change-row]').filter({ hasText: 'kubectl (scale)' }).first();
    await row.waitFor({ timeout: 30000 });
    await page.waitForTimeout(1500);
    await row.click();
  }],
  ['history', async (page) => {
    kubectl('-n', 'demo-shop', 'label', '--overwrite', 'deployment/frontend', `shot=${Date.now() % 1000}`);
    await page.goto(`${base}${FRONTEND}`);
    await page.getByTestId('history-version').nth(1).waitFor({ timeout: 30000 });
    await page.getByTestId('history-heading').scrollIntoViewIfNeeded();
  }],
  ['review', async (page) => {
    await editReplicas(page);
    await page.getByTestId('edit-review').click();
    await page.getByTestId('review-row').first().waitFor({ timeout: 30000 });
    await page.getByTestId('review').scrollIntoViewIfNeeded();
  }],
  ['editor', async (page) => {
    await editReplicas(page);
    await page.getByTestId('edit-text').press('Control+f');
    await page.getByTestId('editor-search').fill('image');
    await page.getByTestId('editor-search').press('Enter');
    await page.getByTestId('editor').scrollIntoViewIfNeeded();
  }],
  ['top', async (page) => {
    await page.goto(`${base}#/top`);
    // A tab's history starts with the tab: wait for a few polls' lines.
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=top-pods] polyline')]
      .some((l) => (l.getAttribute('points') ?? '').split(' ').length >= 3), null, { timeout: 90000 });
  }],
  ['pod-columns', async (page) => {
    await page.goto(`${base}#/r/pods?ns=demo-shop`);
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=resource-row] .vcell.usage')]
      .some((c) => /m$/.test(c.textContent)), null, { timeout: 90000 });
    // Busiest first.
    const cpu = page.getByTestId('column-header').filter({ hasText: /^CPU/ });
    await cpu.click();
    await cpu.click();
  }],
  ['pod-usage', async (page) => {
    await page.goto(`${base}#/top`);
    await page.getByTestId('top-pods').getByTestId('top-row').filter({ hasText: 'frontend' }).first().getByRole('link').click();
    await page.getByTestId('usage-cpu').scrollIntoViewIfNeeded();
  }],
  ['conflict', async (page) => {
    await editReplicas(page);
    kubectl('-n', 'demo-shop', 'scale', 'deployment/frontend', `--replicas=${replicas() + 2}`);
    await page.getByTestId('edit-review').click();
    // The dry run may meet the newer object already; else Apply does.
    await page.locator('[data-testid=edit-conflict], [data-testid=edit-apply]').first().waitFor({ timeout: 30000 });
    if (await page.getByTestId('edit-apply').isVisible()) await page.getByTestId('edit-apply').click();
    await page.getByTestId('edit-conflict').waitFor({ timeout: 30000 });
    await page.getByTestId('edit-conflict').scrollIntoViewIfNeeded();
  }],
  ['shell', async (page) => {
    await page.goto(`${base}#/exec/demo-shop/${frontendPod()}`);
    await page.locator('[data-testid="exec-state"][data-state="open"]').waitFor({ timeout: 30000 });
    await page.getByTestId('terminal').click();
    await page.keyboard.type('echo "a shell from $(id -un), $((6*7)) columns of answers"; ls -la /etc | head -12\n');
    await page.getByTestId('terminal').filter({ hasText: 'columns of answers' }).waitFor({ timeout: 30000 });
  }],
  ['forwards', async (page) => {
    await page.goto(`${base}#/forwards`);
    await page.getByTestId('forward-namespace').fill('demo-shop');
    await page.getByTestId('forward-name').fill('frontend');
    await page.getByTestId('forward-port').fill('80');
    await page.getByTestId('forward-start').click();
    await page.getByTestId('forward-row').first().waitFor({ timeout: 30000 });
  }],
  ['drain', async (page) => {
    // A node of its own (kwok runs it) with two pods of a Deployment behind
    // a budget that allows no disruption: the drain holds at "waiting for
    // budget". All of it is deleted once the picture is taken.
    const apply = (o) => execFileSync(process.env.KUBECTL ?? 'kubectl', ['apply', '-f', '-'], { input: JSON.stringify(o) });
    const node = 'shot-drain';
    apply({ apiVersion: 'v1', kind: 'Node',
      metadata: { name: node, annotations: { 'kwok.x-k8s.io/node': 'fake' }, labels: { 'kubernetes.io/hostname': node, type: 'kwok' } },
      spec: { taints: [{ key: 'shot-drain', value: 'yes', effect: 'NoSchedule' }] },
      status: { allocatable: { cpu: '8', memory: '32Gi', pods: '110' }, capacity: { cpu: '8', memory: '32Gi', pods: '110' } } });
    kubectl('wait', '--for=condition=Ready', `node/${node}`, '--timeout=60s');
    apply({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'shot-drain', namespace: 'demo-shop' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'shot-drain' } }, template: {
        metadata: { labels: { app: 'shot-drain' } },
        spec: { nodeSelector: { 'kubernetes.io/hostname': node },
          tolerations: [{ key: 'shot-drain', operator: 'Exists', effect: 'NoSchedule' }],
          containers: [{ name: 'web', image: 'registry.example/shot/web:1' }] } } } });
    apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'shot-drain', namespace: 'demo-shop' },
      spec: { maxUnavailable: 0, selector: { matchLabels: { app: 'shot-drain' } } } });
    kubectl('-n', 'demo-shop', 'rollout', 'status', 'deployment/shot-drain', '--timeout=60s');
    afterShot.push(() => {
      kubectl('-n', 'demo-shop', 'delete', 'deployment,pdb', 'shot-drain', '--ignore-not-found');
      kubectl('delete', 'node', node, '--ignore-not-found');
    });
    await page.goto(`${base}#/o/nodes/${node}`);
    await page.getByTestId('drain-open').click({ timeout: 30000 });
    await page.getByTestId('drain-timeout').fill('30');
    page.once('dialog', (d) => d.accept());
    await page.getByTestId('drain-start').click();
    await page.locator('[data-testid=drain-pod][data-state=budget]').first().waitFor({ timeout: 30000 });
    await page.getByTestId('drain').scrollIntoViewIfNeeded();
  }],
  ['bulk', async (page) => {
    await page.goto(`${base}#/r/deployments.apps?ns=demo-shop`);
    await page.locator('[data-testid=resource-row][data-key^="demo-shop/"]').first().waitFor({ timeout: 30000 });
    await page.getByTestId('mark-all').check();
    await page.getByTestId('bulk-restart').click({ timeout: 30000 });
    await page.getByTestId('bulk-tally').filter({ hasText: 'will be sent' }).waitFor({ timeout: 30000 });
  }],
  ['permissions', async (page) => {
    await page.goto(`${base}#/permissions`);
    await page.getByTestId('namespace-input').fill('demo-shop');
    await page.getByTestId('namespace-input').press('Enter');
    await page.getByTestId('who-verb').fill('delete');
    await page.getByTestId('who-resource').fill('deployments');
    await page.locator('[data-testid=who-can] [data-testid=grant]').first().waitFor({ timeout: 30000 });
    await page.getByTestId('permission-row').first().waitFor({ timeout: 30000 });
    // The admin's own grid is long: the picture is who can.
    await page.getByTestId('who-asked').evaluate((e) => e.scrollIntoView({ block: 'start' }));
  }],
  ['helm', async (page) => {
    // A release as Helm 3 writes one: a Secret per revision, the release
    // JSON gzipped and base64'd inside the Secret's own base64.
    const secret = (version, status, replicas) => {
      const release = { name: 'storefront', namespace: 'demo-shop', version,
        info: { status, description: version === 1 ? 'Install complete' : 'Upgrade complete',
          last_deployed: new Date().toISOString(), notes: 'The storefront is at http://storefront.demo-shop' },
        chart: { metadata: { name: 'storefront', version: `0.${version}.0`, appVersion: '1.8' }, values: { replicas: 1 } },
        config: { replicas, image: { tag: `1.${version}` } },
        manifest: `---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: storefront\nspec:\n  replicas: ${replicas}\n` };
      const text = gzipSync(Buffer.from(JSON.stringify(release))).toString('base64');
      return { apiVersion: 'v1', kind: 'Secret', type: 'helm.sh/release.v1',
        metadata: { name: `sh.helm.release.v1.storefront.v${version}`, namespace: 'demo-shop',
          labels: { name: 'storefront', owner: 'helm', status, version: `${version}`, modifiedAt: `${Math.floor(Date.now() / 1000) - 600 * (3 - version)}` } },
        data: { release: Buffer.from(text).toString('base64') } };
    };
    const items = [secret(1, 'superseded', 1), secret(2, 'deployed', 3)];
    execFileSync(process.env.KUBECTL ?? 'kubectl', ['apply', '-f', '-'],
      { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }), encoding: 'utf8' });
    afterShot.push(() => kubectl('-n', 'demo-shop', 'delete', 'secret', '-l', 'owner=helm,name=storefront', '--ignore-not-found'));
    await page.goto(`${base}#/helm`);
    const row = page.locator('[data-testid=helm-release][data-release=storefront]');
    await row.getByTestId('helm-open').click({ timeout: 30000 });
    page.once('dialog', (d) => d.accept());
    await page.locator('[data-testid=helm-revision][data-revision="2"]').getByTestId('helm-reveal').click();
    await page.getByTestId('helm-values').waitFor({ timeout: 30000 });
  }],
  ['create', async (page) => {
    await page.goto(`${base}#/create`);
    await page.getByTestId('create-text').fill(`apiVersion: v1
kind: ConfigMap
metadata:
  name: shot-flags
  namespace: demo-shop
data:
  banner: hello
---
apiVersion: demo.kubeglass.dev/v1alpha1
kind: Database
metadata:
  name: shot-db
  namespace: demo-data
spec:
  engine: oracle
  version: "17"
  sizeGiB: 5
  replicas: 1
`);
    await page.getByTestId('create-review').click();
    await page.locator('[data-testid=create-doc][data-state=refused]').waitFor({ timeout: 30000 });
  }],
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
  for (const [name, scene] of scenes.filter(([n]) => !only || only.includes(n))) {
    await scene(page);
    await page.waitForTimeout(600);
    const path = `${out}/${name}${scheme === 'dark' ? '-dark' : ''}.png`;
    await page.screenshot({ path });
    console.log(path);
    for (const undo of afterShot.splice(0)) undo();
  }
  if (only && !only.includes('palette')) { await page.close(); continue; }
  await page.keyboard.press(':');
  await page.getByTestId('palette-input').fill('d');
  await page.waitForTimeout(300);
  await page.screenshot({ path: `${out}/palette${scheme === 'dark' ? '-dark' : ''}.png` });
  await page.close();
}
await browser.close();
