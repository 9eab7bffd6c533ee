// Helm releases: a release made by hand as Helm 3 writes one (a Secret per
// revision, type helm.sh/release.v1, Helm's labels, the release as base64
// of gzip of JSON), listed with its revisions from the labels alone, live;
// its values appear only after Reveal, and before that no byte of the
// payload is in the page or in anything the app keeps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { withApp, apply, kubectl, cleanUp, until } from '../lib.mjs';

const NS = 'demo-shop';
const SUFFIX = `${Date.now() % 1000000}`;
const RELEASE = `e2e-shop-${SUFFIX}`;
/** A value only the payload holds. */
const SECRET_VALUE = `helm-e2e-password-${SUFFIX}`;

const app = withApp();

/** Revision `version` of the release as Helm 3 stores it. */
function revision(version, status, replicas) {
  const release = {
    name: RELEASE, namespace: NS, version,
    info: { status, description: version === 1 ? 'Install complete' : 'Upgrade complete',
      last_deployed: new Date().toISOString(), notes: `Thanks for installing ${RELEASE}.` },
    chart: { metadata: { apiVersion: 'v2', name: 'shop', version: `1.${version}.0`, appVersion: '2.0' },
      values: { replicas: 1, password: 'changeme' }, templates: [] },
    config: { replicas, password: SECRET_VALUE },
    manifest: `---\n# Source: shop/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${RELEASE}\nspec:\n  replicas: ${replicas}\n`,
  };
  // Helm: JSON, gzip, base64; the Secret's data is base64 of that text.
  const helmText = gzipSync(Buffer.from(JSON.stringify(release))).toString('base64');
  return {
    apiVersion: 'v1', kind: 'Secret', type: 'helm.sh/release.v1',
    metadata: { name: `sh.helm.release.v1.${RELEASE}.v${version}`, namespace: NS,
      labels: { name: RELEASE, owner: 'helm', status, version: `${version}`, modifiedAt: `${Math.floor(Date.now() / 1000)}` } },
    data: { release: Buffer.from(helmText).toString('base64') },
    helmText,
  };
}

function make(version, status, replicas) {
  const { helmText, ...secret } = revision(version, status, replicas);
  apply(secret);
  return helmText;
}

test('a Helm release lists with its revisions from labels, and its values show only after Reveal', async (t) => {
  t.after(() => cleanUp(['-n', NS, 'delete', 'secret', '-l', `name=${RELEASE},owner=helm`, '--ignore-not-found']));
  const payloads = [make(1, 'superseded', 1), make(2, 'deployed', 3)];
  const { page } = app;
  await page.goto(`${app.url}#/helm`);
  await page.getByTestId('namespace-input').fill(NS);
  await page.getByTestId('namespace-input').press('Enter');
  const row = page.locator(`[data-testid=helm-release][data-release="${RELEASE}"]`);
  await row.waitFor({ timeout: 20000 });
  assert.equal(await row.getAttribute('data-revision'), '2');
  assert.equal(await row.getAttribute('data-status'), 'deployed');
  await row.getByTestId('helm-open').click();
  const revisions = page.locator('[data-testid=helm-revision]');
  assert.deepEqual(await revisions.evaluateAll((rs) => rs.map((r) => `${r.dataset.revision}:${r.dataset.status}`)),
    ['2:deployed', '1:superseded']);

  // Nothing of the payload anywhere before Reveal: the page, and all the
  // app keeps (the launcher's folder, localStorage, Cache Storage).
  const pieces = [SECRET_VALUE, ...payloads.map((p) => p.slice(0, 40)), ...payloads.map((p) => Buffer.from(p).toString('base64').slice(0, 40))];
  const kept = async () => {
    const html = await page.content();
    const browser = await page.evaluate(async () => {
      const texts = Object.keys(localStorage).map((k) => localStorage.getItem(k));
      for (const name of await caches.keys()) {
        const cache = await caches.open(name);
        for (const req of await cache.keys()) texts.push(await (await cache.match(req)).text());
      }
      return texts.join('\n');
    });
    const files = [];
    const walk = (dir) => {
      for (const name of readdirSync(dir)) {
        const p = join(dir, name);
        if (statSync(p).isDirectory()) walk(p); else files.push(readFileSync(p, 'latin1'));
      }
    };
    walk(app.state);
    assert.ok(files.length > 0, "the launcher keeps a state folder");
    return [html, browser, ...files].join('\n');
  };
  // Leaving saves what a page keeps (a list of Secrets never is): leave and come back.
  await page.goto(`${app.url}#/xray`);
  await page.goto(`${app.url}#/helm`);
  await row.waitFor({ timeout: 20000 });
  const before = await kept();
  for (const p of pieces) assert.ok(!before.includes(p), `before Reveal something holds ${p}`);

  // Reveal revision 2 (confirmed): its values.
  await row.getByTestId('helm-open').click();
  page.once('dialog', (d) => d.accept());
  await page.locator('[data-testid=helm-revision][data-revision="2"]').getByTestId('helm-reveal').click();
  const values = page.getByTestId('helm-values');
  await values.waitFor({ timeout: 20000 });
  assert.match(await values.innerText(), new RegExp(`password: ${SECRET_VALUE}`));
  assert.match(await values.innerText(), /replicas: 3/);
  assert.match(await page.getByTestId('helm-detail').innerText(), /shop 1\.2\.0 \(app 2\.0\)/);

  // Reveal 1 too, and compare: the values and the Deployment differ.
  page.once('dialog', (d) => d.accept());
  await page.locator('[data-testid=helm-revision][data-revision="1"]').getByTestId('helm-reveal').click();
  await page.locator('[data-testid=helm-detail][data-revision="1"]').waitFor({ timeout: 20000 });
  await page.locator('[data-testid=helm-revision][data-revision="1"]').getByTestId('helm-compare').check();
  await page.locator('[data-testid=helm-revision][data-revision="2"]').getByTestId('helm-compare').check();
  const diff = page.getByTestId('helm-diff-row');
  await diff.first().waitFor({ timeout: 10000 });
  const changed = await diff.allInnerTexts();
  assert.ok(changed.some((r) => r.includes('values') && r.includes('replicas')), changed.join('\n'));
  assert.ok(changed.some((r) => r.includes(`Deployment ${RELEASE}`) && r.includes('replicas')), changed.join('\n'));

  // A new revision shows without a reload.
  make(3, 'deployed', 5);
  kubectl('-n', NS, 'label', 'secret', `sh.helm.release.v1.${RELEASE}.v2`, 'status=superseded', '--overwrite');
  assert.ok(await until(async () => (await row.getAttribute('data-revision')) === '3', 15000), 'revision 3 live');
  assert.equal(await page.locator('[data-testid=helm-revision]').count(), 3);
});

test('a payload that is not a release says so where the person looks', async (t) => {
  const name = `e2e-broken-${SUFFIX}`;
  t.after(() => cleanUp(['-n', NS, 'delete', 'secret', `sh.helm.release.v1.${name}.v1`, '--ignore-not-found']));
  apply({
    apiVersion: 'v1', kind: 'Secret', type: 'helm.sh/release.v1',
    metadata: { name: `sh.helm.release.v1.${name}.v1`, namespace: NS,
      labels: { name, owner: 'helm', status: 'failed', version: '1' } },
    data: { release: Buffer.from('this is not base64 gzip').toString('base64') },
  });
  const { page } = app;
  await page.goto(`${app.url}#/helm`);
  const row = page.locator(`[data-testid=helm-release][data-release="${name}"]`);
  await row.waitFor({ timeout: 20000 });
  await row.getByTestId('helm-open').click();
  page.once('dialog', (d) => d.accept());
  await page.getByTestId('helm-reveal').click();
  assert.match(await page.getByTestId('helm-error').innerText({ timeout: 20000 }), /could not be read: not base64/);
  // The list is still there.
  assert.equal(await row.count(), 1);
});
