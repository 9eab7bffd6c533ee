// What may I do, and who can: the Permissions page against the real
// apiserver's RBAC. "Who can" is worked out in the tab from the cluster's
// Roles, ClusterRoles and bindings and checked against the apiserver's own
// answer (`kubectl auth can-i --as`); the restricted user's grid is checked
// cell for cell against `kubectl auth can-i --list`; a button RBAC withholds
// says why on hover.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { withApp, startApp, apply, kubectl, cleanUp, until, KUBECTL, env } from '../lib.mjs';

const NS = 'demo-shop';
const SUFFIX = `${Date.now() % 1000000}`;
const JANITOR = `e2e-janitor-${SUFFIX}`;
const BINDING = `e2e-janitor-edits-${SUFFIX}`;

const app = withApp();

/** The server's own answer: may `as` do `verb resource` in NS? */
function serverSays(as, verb, resource) {
  try {
    return execFileSync(KUBECTL(), ['--kubeconfig', env('KUBECONFIG'), 'auth', 'can-i', verb, resource,
      '-n', NS, '--as', as], { encoding: 'utf8' }).trim();
  } catch (e) {
    return String(e.stdout).trim();
  }
}

async function openIn(page, url) {
  await page.goto(`${url}#/permissions`);
  await page.getByTestId('permissions-page').waitFor({ timeout: 20000 });
  await page.getByTestId('namespace-input').fill(NS);
  await page.getByTestId('namespace-input').press('Enter');
}

/** The rows of a grant table: subject, binding kind and name, role. */
async function grants(page, table) {
  return page.locator(`[data-testid=${table}] [data-testid=grant]`).evaluateAll((rows) => rows.map((r) => ({
    subject: r.dataset.subject, binding: r.dataset.binding, kind: r.dataset.bindingKind, role: r.dataset.role,
    chain: r.querySelector('td:last-child').innerText,
  })));
}

async function ask(page, verb, resource) {
  await page.getByTestId('who-verb').fill(verb);
  await page.getByTestId('who-resource').fill(resource);
}

test('who can delete pods in demo-shop: the admin binding, not the restricted user, and a new binding live', async (t) => {
  t.after(() => cleanUp(['-n', NS, 'delete', 'rolebinding', BINDING, '--ignore-not-found'],
    ['-n', NS, 'delete', 'serviceaccount', JANITOR, '--ignore-not-found']));
  const { page } = app;
  await openIn(page, app.url);
  await ask(page, 'delete', 'pods');
  let rows = [];
  assert.ok(await until(async () => {
    rows = await grants(page, 'who-can');
    return rows.some((r) => r.binding === 'cluster-admin');
  }, 20000), `cluster-admin among who may delete pods: ${JSON.stringify(rows)}`);
  const admin = rows.find((r) => r.binding === 'cluster-admin');
  assert.equal(admin.subject, 'Group system:masters');
  assert.equal(admin.kind, 'ClusterRoleBinding');
  assert.match(admin.chain, /ClusterRoleBinding cluster-admin → ClusterRole cluster-admin/);
  assert.ok(!rows.some((r) => r.subject === 'User viewer'), 'the viewer may not delete pods');
  assert.equal(serverSays('viewer', 'delete', 'pods'), 'no', 'the apiserver agrees');
  assert.match(await page.getByTestId('who-asked').innerText(), /may delete pods in demo-shop/);

  // The viewer may list them, through view (an aggregated ClusterRole).
  await ask(page, 'list', 'pods');
  assert.ok(await until(async () => (await grants(page, 'who-can')).some((r) => r.subject === 'User viewer'), 10000),
    'the viewer may list pods');
  const viewer = (await grants(page, 'who-can')).find((r) => r.subject === 'User viewer');
  assert.equal(viewer.binding, 'viewer-can-view');
  assert.match(viewer.chain, /RoleBinding demo-shop\/viewer-can-view → ClusterRole view/);
  assert.equal(serverSays('viewer', 'list', 'pods'), 'yes');

  // A binding made now shows without a reload, and the server agrees.
  await ask(page, 'delete', 'pods');
  kubectl('-n', NS, 'create', 'serviceaccount', JANITOR);
  kubectl('-n', NS, 'create', 'rolebinding', BINDING, '--clusterrole=edit', `--serviceaccount=${NS}:${JANITOR}`);
  const sa = `ServiceAccount ${NS}/${JANITOR}`;
  assert.ok(await until(async () => (await grants(page, 'who-can')).some((r) => r.subject === sa), 15000),
    'the new binding appears live');
  assert.equal(serverSays(`system:serviceaccount:${NS}:${JANITOR}`, 'delete', 'pods'), 'yes');
  const chain = (await grants(page, 'who-can')).find((r) => r.subject === sa).chain;
  assert.match(chain, new RegExp(`RoleBinding ${NS}/${BINDING} → ClusterRole edit`));

  // What that account is granted, from the same data.
  await page.getByTestId('subject-pick').selectOption({ label: sa });
  assert.ok(await until(async () => (await grants(page, 'subject-grants')).some((r) => r.binding === BINDING), 10000),
    'the account\'s own grants name its binding');

  // Gone again without a reload.
  kubectl('-n', NS, 'delete', 'rolebinding', BINDING);
  assert.ok(await until(async () => !(await grants(page, 'who-can')).some((r) => r.subject === sa), 15000),
    'the deleted binding leaves');

  // A resource the cluster does not serve is said so.
  await ask(page, 'get', 'gadgets');
  assert.match(await page.getByTestId('who-error').innerText({ timeout: 5000 }), /no resource called "gadgets"/);
});

/** `kubectl auth can-i --list` as rows `resource|name|url` → verbs. */
function canIList(kubeconfig) {
  const out = execFileSync(KUBECTL(), ['--kubeconfig', kubeconfig, 'auth', 'can-i', '--list', '-n', NS],
    { encoding: 'utf8' });
  const rows = new Map();
  for (const line of out.split('\n').slice(1)) {
    if (!line.trim()) continue;
    const m = line.match(/^(\S*)\s*\[([^\]]*)\]\s+\[([^\]]*)\]\s+\[([^\]]*)\]\s*$/);
    assert.ok(m, `a can-i --list line: ${JSON.stringify(line)}`);
    const [, resource, urls, names, verbs] = m;
    const keys = urls ? urls.split(' ').map((u) => `||${u}`) : [`${resource}|${names}|`];
    for (const key of keys) {
      const set = rows.get(key) ?? new Set();
      verbs.split(' ').filter(Boolean).forEach((v) => set.add(v));
      rows.set(key, set);
    }
  }
  return new Map([...rows].map(([k, v]) => [k, [...v].sort().join(' ')]));
}

test('the restricted user\'s grid is kubectl auth can-i --list, cell for cell, and it is told it may not read RBAC', async (t) => {
  const restricted = await startApp(process.env.RESTRICTED_KUBECONFIG);
  t.after(() => restricted.stop());
  const { page } = app;
  await openIn(page, restricted.url);
  await page.getByTestId('rbac-unreadable').waitFor({ timeout: 20000 });
  assert.match(await page.getByTestId('rbac-unreadable').innerText(), /You may not list roles\.rbac\.authorization\.k8s\.io/);
  assert.equal(await page.getByTestId('who-verb').count(), 0, 'no who-can for a user who may not read RBAC');
  const rowsOf = () => page.locator('[data-testid=my-permissions] [data-testid=permission-row]').evaluateAll((rows) =>
    rows.map((r) => [`${r.dataset.resource}|${r.dataset.name}|${r.dataset.url}`,
      r.dataset.verbs.split(' ').sort().join(' ')]));
  assert.ok(await until(async () => (await rowsOf()).some(([k]) => k.startsWith('pods|')), 20000),
    'the grid for demo-shop');
  const shown = new Map(await rowsOf());
  const kubectlSays = canIList(process.env.RESTRICTED_KUBECONFIG);
  assert.ok(kubectlSays.size > 5, `kubectl listed rows: ${kubectlSays.size}`);
  assert.deepEqual(Object.fromEntries([...shown].sort()), Object.fromEntries([...kubectlSays].sort()));
  // The cells: ✓ exactly where a row's verbs allow.
  const pods = page.locator('[data-testid=permission-row][data-resource=pods][data-name=""]');
  assert.equal(await pods.locator('td.mark[data-allowed=true]').count(), 3, 'get, list, watch');
});

test('a button RBAC withholds is shown greyed and says why on hover', async (t) => {
  const restricted = await startApp(process.env.RESTRICTED_KUBECONFIG);
  t.after(() => restricted.stop());
  const { page } = app;
  await page.goto(`${restricted.url}#/o/deployments.apps/${NS}/frontend`);
  const refused = page.locator('[data-testid=action-refused][data-action=delete]');
  await refused.waitFor({ timeout: 20000 });
  assert.equal(await refused.getAttribute('title'), `You may not delete deployments in ${NS}.`);
  assert.equal(await page.locator('[data-testid=action-refused][data-action=scale]').getAttribute('title'),
    `You may not update deployments/scale in ${NS}.`);
  assert.equal(await page.getByTestId('action-delete').count(), 0, 'no Delete that works');
  // Clicking it asks nothing and does nothing.
  let asked = false;
  page.once('dialog', (d) => { asked = true; d.dismiss(); });
  await refused.click({ force: true });
  assert.equal(asked, false, 'no confirmation was asked');
  assert.equal(await page.getByTestId('action-result').count(), 0, 'no action ran');
  // The admin sees the working button and no refused one.
  await page.goto(`${app.url}#/o/deployments.apps/${NS}/frontend`);
  await page.getByTestId('action-delete').waitFor({ timeout: 20000 });
  assert.equal(await page.getByTestId('action-refused').count(), 0);
});
