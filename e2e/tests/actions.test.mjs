// Scaling from the UI: the Deployment changes, and the Event kubeglass
// records shows both in `kubectl get events` and in the app's event stream; the
// other actions, a declined one, and one the cluster refuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { withApp, apply, kubectl, until, ARTIFACTS } from '../lib.mjs';

// One dialog handler for the whole file; tests set how it answers.
const dialog = { mode: 'accept', prompt: '', seen: [] };

const app = withApp({
  onBrowser({ page }) {
    page.on('dialog', (d) => {
      dialog.seen.push(`${d.type()}: ${d.message()}`);
      if (dialog.mode === 'dismiss') return d.dismiss();
      return d.type() === 'prompt' ? d.accept(dialog.prompt) : d.accept();
    });
  },
});

test('scaling a Deployment from the UI records an Event', async () => {
  const { page } = app;
  dialog.mode = 'accept';
  await page.goto(app.url);
  const row = page.locator('[data-testid=deployment-row][data-key="demo-shop/checkout"]');
  await row.waitFor({ timeout: 20000 });
  const replicas = () => Number(kubectl('-n', 'demo-shop', 'get', 'deployment', 'checkout', '-o', 'jsonpath={.spec.replicas}'));
  const before = replicas();
  assert.equal(Number(await row.getByTestId('desired').innerText()), before);

  const t0 = Date.now();
  await row.getByTestId('scale-up').click();
  assert.ok(await until(async () => replicas() === before + 1, 15000, 100), `replicas stayed at ${replicas()}`);
  console.log(`  deployment scaled ${Date.now() - t0} ms after the click`);
  await page.getByTestId('action-result').filter({ hasText: `Scaled demo-shop/checkout to ${before + 1}` }).waitFor({ timeout: 10000 });

  const want = `Scaled from ${before} to ${before + 1} replicas by kubeglass`;
  const mine = await kubeglassEvent('demo-shop', 'checkout', 'Scaled', t0);
  assert.ok(mine, 'kubectl get events shows a Scaled Event from kubeglass written just now');
  assert.equal(mine.message, want);

  const inStream = page.getByTestId('event-row').filter({ hasText: 'deployment/checkout' }).filter({ hasText: want }).first();
  await inStream.waitFor({ timeout: 15000 });
  assert.match(await inStream.innerText(), /kubeglass/);
  await page.screenshot({ path: `${ARTIFACTS}/scaled.png`, fullPage: true });

  await row.getByTestId('scale-down').click();
  assert.ok(await until(async () => replicas() === before, 15000, 100), 'scaled back down');
});

test('a Warning event from a real controller shows in the stream', async (t) => {
  const { page } = app;
  await page.goto(app.url);
  // A pod no node can take: the real scheduler reports FailedScheduling.
  const pod = `e2e-unschedulable-${Date.now() % 100000}`;
  kubectl('-n', 'demo-batch', 'run', pod, '--image=registry.example/e2e:1', '--restart=Never',
    '--overrides={"spec":{"nodeSelector":{"kubeglass.dev/nowhere":"true"}}}');
  t.after(async () => { kubectl('-n', 'demo-batch', 'delete', 'pod', pod, '--wait=false'); });
  const warning = page.locator('[data-testid=event-row].event-warning')
    .filter({ hasText: 'FailedScheduling' }).filter({ hasText: pod });
  await warning.first().waitFor({ timeout: 30000 });
  assert.match(await warning.first().innerText(), /didn't match Pod's node affinity\/selector/);
});

/** Waits until an Event with `reason` from kubeglass about `name`, seen since `since`, exists in `namespace`. */
async function kubeglassEvent(namespace, name, reason, since = Date.now() - 20000) {
  let found;
  await until(async () => {
    const list = JSON.parse(kubectl('-n', namespace, 'get', 'events', '--field-selector', `involvedObject.name=${name},reason=${reason}`, '-o', 'json'));
    // Written through events.k8s.io/v1: reportingController shows as
    // reportingComponent in core/v1, and eventTime is when it happened.
    found = list.items.find((e) => e.reportingComponent === 'kubeglass'
      && Date.parse(e.eventTime ?? e.lastTimestamp) >= since - 1000);
    return found;
  }, 15000, 200);
  return found;
}

test('restart rollout, labels and delete from the UI, each confirmed and recorded', async () => {
  const { page } = app;
  const ns = 'demo-batch';
  const name = `e2e-actions-${Date.now() % 100000}`;
  kubectl('-n', ns, 'create', 'deployment', name, '--image=registry.example/e2e:1', '--replicas=1');
  dialog.mode = 'accept';
  dialog.prompt = 'tier=gold, team-';
  dialog.seen = [];
  await page.goto(app.url);
  const row = page.locator(`[data-testid=deployment-row][data-key="${ns}/${name}"]`);
  await row.waitFor({ timeout: 20000 });

  await row.getByTestId('restart').click();
  const restarted = await until(async () => kubectl('-n', ns, 'get', 'deployment', name, '-o',
    'jsonpath={.spec.template.metadata.annotations.kubectl\\.kubernetes\\.io/restartedAt}').trim(), 15000, 200);
  assert.ok(restarted, 'the pod template carries restartedAt');
  assert.ok(await kubeglassEvent(ns, name, 'RolloutRestarted'), 'RolloutRestarted event');

  await row.getByTestId('labels').click();
  assert.ok(await until(async () => kubectl('-n', ns, 'get', 'deployment', name, '-o', 'jsonpath={.metadata.labels.tier}') === 'gold', 15000, 200));
  assert.ok(await kubeglassEvent(ns, name, 'LabelsEdited'), 'LabelsEdited event');

  await row.getByTestId('delete').click();
  assert.ok(await until(async () => !kubectl('-n', ns, 'get', 'deployments', '-o', 'name').includes(`/${name}`), 15000, 200), 'deleted');
  await row.waitFor({ state: 'detached', timeout: 15000 });
  assert.ok(await kubeglassEvent(ns, name, 'Deleted'), 'Deleted event');
  assert.deepEqual(dialog.seen.map((d) => d.split(':')[0]), ['confirm', 'prompt', 'confirm'], 'each action asked first');
});

test('a declined confirmation does nothing', async (t) => {
  const { page } = app;
  dialog.mode = 'dismiss';
  dialog.seen = [];
  await page.goto(app.url);
  const row = page.locator('[data-testid=deployment-row][data-key="demo-shop/checkout"]');
  await row.waitFor({ timeout: 20000 });
  const replicas = () => kubectl('-n', 'demo-shop', 'get', 'deployment', 'checkout', '-o', 'jsonpath={.spec.replicas}');
  const label = () => kubectl('-n', 'demo-shop', 'get', 'deployment', 'checkout', '-o', 'jsonpath={.metadata.labels.e2e-declined}');
  const before = replicas();
  await row.getByTestId('scale-up').click();
  // The click asked (a dead button would not have) and was told no.
  assert.ok(await until(async () => dialog.seen.length === 1, 5000), `asked: ${dialog.seen}`);
  assert.match(dialog.seen[0], /^confirm: Scale demo-shop\/checkout to \d+\?$/);
  // An accepted action after it: actions run in order, so once this one is
  // done a scale that had been queued would be done too.
  dialog.mode = 'accept';
  dialog.prompt = 'e2e-declined=checked';
  t.after(async () => { kubectl('-n', 'demo-shop', 'label', 'deployment', 'checkout', 'e2e-declined-'); });
  await row.getByTestId('labels').click();
  assert.ok(await until(async () => label() === 'checked', 15000, 200), 'the later action ran');
  assert.equal(replicas(), before, 'the declined scale was never sent');
});

test('cordon and uncordon a node from the UI', async () => {
  const { page } = app;
  dialog.mode = 'accept';
  await page.goto(app.url);
  // Start from a schedulable node whatever an earlier run left behind.
  kubectl('uncordon', 'kwok-node-5');
  const row = page.locator('[data-testid=node-row][data-name="kwok-node-5"]');
  await row.getByTestId('scheduling').filter({ hasText: /^Schedulable$/ }).waitFor({ timeout: 20000 });
  const unschedulable = () => kubectl('get', 'node', 'kwok-node-5', '-o', 'jsonpath={.spec.unschedulable}');
  await row.getByTestId('cordon').click();
  assert.ok(await until(async () => unschedulable() === 'true', 15000, 200), 'cordoned');
  await row.getByTestId('scheduling').filter({ hasText: 'SchedulingDisabled' }).waitFor({ timeout: 10000 });
  assert.ok(await kubeglassEvent('default', 'kwok-node-5', 'Cordoned'), 'Cordoned event (cluster-scoped objects get their events in default)');
  await row.getByTestId('cordon').click();
  assert.ok(await until(async () => unschedulable() !== 'true', 15000, 200), 'uncordoned');
  assert.ok(await kubeglassEvent('default', 'kwok-node-5', 'Uncordoned'), 'Uncordoned event');
});

test('an action the cluster refuses says it was forbidden, with the server\'s words, and changes nothing', async (t) => {
  const { page } = app;
  const suffix = Date.now() % 100000;
  const ns = `e2e-locked-${suffix}`;
  const name = 'frozen';
  const policy = `kubeglass-e2e-locked-${suffix}`;
  const message = `e2e: ${ns} is locked`;
  kubectl('create', 'namespace', ns);
  kubectl('label', 'namespace', ns, `kubeglass-e2e-locked=${suffix}`);
  kubectl('-n', ns, 'create', 'deployment', name, '--image=registry.example/e2e:1', '--replicas=1');
  // A real admission policy refuses every change to Deployments in this
  // namespace with 403 Forbidden (reason Forbidden; the default is Invalid).
  apply({
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy',
    metadata: { name: policy },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['UPDATE', 'DELETE'], resources: ['deployments', 'deployments/scale'] }] },
      validations: [{ expression: 'false', message, reason: 'Forbidden' }],
    },
  });
  apply({
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: policy },
    spec: {
      policyName: policy, validationActions: ['Deny'],
      matchResources: { namespaceSelector: { matchLabels: { 'kubeglass-e2e-locked': String(suffix) } } },
    },
  });
  t.after(async () => {
    kubectl('delete', 'validatingadmissionpolicybinding', policy, '--ignore-not-found');
    kubectl('delete', 'validatingadmissionpolicy', policy, '--ignore-not-found');
    kubectl('delete', 'namespace', ns, '--wait=false');
  });
  // The policy takes effect once the apiserver has loaded it: wait until
  // a server-side dry run is refused.
  const refused = () => {
    try {
      execFileSync(process.env.KUBECTL, ['--kubeconfig', process.env.KUBECONFIG, '-n', ns, 'scale', 'deployment', name,
        '--replicas=3', '--dry-run=server'], { stdio: 'pipe' });
      return false;
    } catch (e) {
      return String(e.stderr).includes(message);
    }
  };
  assert.ok(await until(async () => refused(), 20000, 250), 'the policy refuses a dry-run scale');
  dialog.mode = 'accept';
  await page.goto(app.url);
  const row = page.locator(`[data-testid=deployment-row][data-key="${ns}/${name}"]`);
  await row.waitFor({ timeout: 20000 });
  await row.getByTestId('scale-up').click();
  const banner = page.getByTestId('action-result');
  await banner.filter({ hasText: `You cannot scale ${ns}/${name} to 2` }).waitFor({ timeout: 15000 });
  assert.equal(await banner.getAttribute('data-problem'), 'forbidden');
  assert.match(await banner.getByTestId('action-detail').innerText(), new RegExp(message));
  assert.equal(kubectl('-n', ns, 'get', 'deployment', name, '-o', 'jsonpath={.spec.replicas}'), '1', 'nothing changed');
  assert.ok(await until(async () => {
    const items = JSON.parse(kubectl('-n', ns, 'get', 'events', '--field-selector', 'reason=ActionFailed', '-o', 'json')).items;
    return items.some((e) => e.type === 'Warning' && e.reportingComponent === 'kubeglass');
  }, 15000, 200), 'a Warning ActionFailed Event is recorded');
});
