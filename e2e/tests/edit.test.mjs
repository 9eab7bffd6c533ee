// Editing an object against the real cluster: the YAML in the editor, Review
// as the server's dry run (the server's own changes marked), Apply with the
// resourceVersion the edit began from, a conflict with a change made by
// kubectl meanwhile and its rebase, and a server validation error at its line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, cleanUp, apply, deployment, kubectl, until } from '../lib.mjs';
import { editor, objectPage } from '../pages.mjs';

const NAME = `e2e-edit-${Date.now() % 1000000}`;

// A custom resource whose status is written through the object itself (no
// status subresource): an edit must never wipe that status.
const GAUGE_GROUP = 'e2e.kubeglass.dev';
const GAUGE_SUFFIX = Date.now() % 1000000;
const GAUGES = `gauges${GAUGE_SUFFIX}`;
const GAUGE_KIND = `Gauge${GAUGE_SUFFIX}`;
const GAUGE_CRD = `${GAUGES}.${GAUGE_GROUP}`;
const gauge = (path) => kubectl('-n', 'demo-shop', 'get', GAUGE_CRD, 'g1', '-o', `jsonpath={${path}}`);

const replicas = () => Number(kubectl('-n', 'demo-shop', 'get', 'deployment', NAME, '-o', 'jsonpath={.spec.replicas}'));

const app = withApp({
  async setup() {
    apply(deployment(NAME, 'registry.example/e2e/edit:1'));
    // Until its rollout is done the controller keeps writing its status,
    // and an edit opened before a write is a conflict when applied (seen
    // once in CI, after the drain test had kept the controllers busy).
    kubectl('-n', 'demo-shop', 'rollout', 'status', `deployment/${NAME}`, '--timeout=60s');
    apply({
      apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
      metadata: { name: GAUGE_CRD },
      spec: {
        group: GAUGE_GROUP, scope: 'Namespaced',
        names: { plural: GAUGES, singular: `gauge${GAUGE_SUFFIX}`, kind: GAUGE_KIND },
        versions: [{ name: 'v1', served: true, storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    });
    kubectl('wait', '--for=condition=Established', `crd/${GAUGE_CRD}`, '--timeout=30s');
    apply({ apiVersion: `${GAUGE_GROUP}/v1`, kind: GAUGE_KIND,
      metadata: { name: 'g1', namespace: 'demo-shop' },
      spec: { size: 1 }, status: { phase: 'Ready', observed: 1 } });
  },
  teardown() {
    cleanUp(
      ['-n', 'demo-shop', 'delete', 'deployment', NAME, '--ignore-not-found', '--wait=false'],
      ['delete', 'crd', GAUGE_CRD, '--ignore-not-found', '--wait=false'],
    );
  },
});

async function openEditor(page) {
  await objectPage(page).open(app.url, 'deployments.apps', 'demo-shop', NAME);
  return objectPage(page).edit();
}

const rows = async (page) => page.getByTestId('review-row').evaluateAll((trs) => trs.map((tr) => ({
  text: [...tr.querySelectorAll('td')].slice(0, 3).map((td) => td.textContent).join(' | '),
  by: tr.dataset.by,
})));

test('an edit of replicas is reviewed as the server would store it, with the server\'s defaults marked, and applied', async () => {
  const { page } = app;
  const text = await openEditor(page);
  const yaml = await text.inputValue();
  assert.match(yaml, /^ {2}replicas: 1$/m, yaml);
  assert.doesNotMatch(yaml, /managedFields|^status:/m, 'status and managedFields are not edited');
  // Two changes of ours: the replicas, and a port without its protocol,
  // which the server defaults to TCP.
  // (Keys are in order, so the container's item starts with its image.)
  const edited = yaml.replace(/^ {2}replicas: 1$/m, '  replicas: 2')
    .replace(/^( *)- image: registry\.example\/e2e\/edit:1$/m, '$1- image: registry.example/e2e/edit:1\n$1  ports:\n$1  - containerPort: 8080');
  assert.notEqual(edited, yaml.replace(/^ {2}replicas: 1$/m, '  replicas: 2'), `a port was added: ${yaml}`);
  await text.fill(edited);
  await editor(page).review();
  const reviewed = await rows(page);
  assert.ok(reviewed.some((r) => r.text === 'spec.replicas | 1 | 2' && r.by === 'you'), JSON.stringify(reviewed));
  const port = reviewed.find((r) => r.text.startsWith('spec.template.spec.containers[0].ports'));
  assert.ok(port && port.by === 'server' && /"protocol":"TCP"/.test(port.text), `the server's default is marked: ${JSON.stringify(reviewed)}`);
  assert.equal(replicas(), 1, 'a review writes nothing');
  await editor(page).apply();
  assert.ok(await until(async () => replicas() === 2, 10000), 'written');
  assert.match(await page.getByTestId('action-result').innerText(), new RegExp(`Edited demo-shop/${NAME}`));
  // Recorded as an Event by kubeglass.
  assert.ok(await until(async () => kubectl('-n', 'demo-shop', 'get', 'events', '--field-selector',
    `involvedObject.name=${NAME},reason=Edited`, '-o', 'jsonpath={.items[*].source.component}{.items[*].reportingComponent}').includes('kubeglass'), 10000),
  'an Edited event from kubeglass');
});

test('an edit of a custom resource without a status subresource sends only the change, and its status stays (read with kubectl)', async () => {
  const { page } = app;
  assert.equal(gauge('.status.phase'), 'Ready', 'the status is stored with the object');
  await objectPage(page).open(app.url, GAUGE_CRD, 'demo-shop', 'g1');
  const text = await objectPage(page).edit();
  const yaml = await text.inputValue();
  assert.match(yaml, /^ {2}size: 1$/m, yaml);
  await text.fill(yaml.replace(/^ {2}size: 1$/m, '  size: 2'));
  await editor(page).review();
  // The review compares what the server would store with what it stores
  // now, status included (it is part of this object): only the size moves.
  assert.deepEqual((await rows(page)).map((r) => r.text), ['spec.size | 1 | 2']);
  await editor(page).apply();
  assert.ok(await until(async () => gauge('.spec.size') === '2', 10000), 'written');
  assert.equal(gauge('.status.phase'), 'Ready', 'the status is still there');
  assert.equal(gauge('.status.observed'), '1');
});

test('an edit that races kubectl gets the conflict screen, and its rebase keeps both changes', async () => {
  const { page } = app;
  // The last test's scale may still be rolling out, and each status write
  // of the Deployment's controller would race this edit too (CI once saw
  // the rebased edit refused): wait until it has stopped writing.
  kubectl('-n', 'demo-shop', 'rollout', 'status', 'deployment', NAME, '--timeout=60s');
  const text = await openEditor(page);
  const yaml = await text.inputValue();
  const before = replicas();
  await text.fill(yaml.replace(/^ {2}replicas: \d+$/m, `  replicas: ${before + 2}`));
  // Meanwhile someone labels it.
  kubectl('-n', 'demo-shop', 'label', 'deployment', NAME, 'raced=yes');
  await page.getByTestId('edit-review').click();
  await page.getByTestId('edit-conflict').waitFor({ timeout: 15000 });
  // ("yes" is quoted: YAML 1.1 would read it as true.)
  assert.match(await page.getByTestId('edit-theirs').innerText(), /raced: "yes"/, 'the server\'s object now is shown');
  await page.getByTestId('edit-rebase').click();
  assert.match(await page.getByTestId('edit-note').innerText(), /newer object/);
  const rebased = await page.getByTestId('edit-text').inputValue();
  assert.match(rebased, /raced: "yes"/, 'their label kept');
  assert.match(rebased, new RegExp(`^ {2}replicas: ${before + 2}$`, 'm'), 'our replicas kept');
  await editor(page).review();
  await editor(page).apply();
  assert.ok(await until(async () => replicas() === before + 2, 10000));
  assert.equal(kubectl('-n', 'demo-shop', 'get', 'deployment', NAME, '-o', 'jsonpath={.metadata.labels.raced}'), 'yes');
});

test('an invalid edit shows the server\'s error at the field\'s line, and text that does not read says where', async () => {
  const { page } = app;
  const text = await openEditor(page);
  const yaml = await text.inputValue();
  const bad = yaml.replace(/^ {2}replicas: \d+$/m, '  replicas: -1');
  await text.fill(bad);
  await page.getByTestId('edit-review').click();
  const cause = page.getByTestId('edit-cause').first();
  await cause.waitFor({ timeout: 15000 });
  const line = bad.split('\n').findIndex((l) => l === '  replicas: -1') + 1;
  assert.match(await cause.innerText(), new RegExp(`^line ${line}: spec\\.replicas: .*greater than or equal to 0`));
  // The editor marks that line, and only it.
  const marked = async () => page.getByTestId('editor-paint').locator('.line').evaluateAll((ls) => ls.flatMap((l, i) => (l.classList.contains('bad') ? [i + 1] : [])));
  assert.deepEqual(await marked(), [line]);
  // Text that is not YAML: the line and column, and nothing is sent.
  await text.fill('spec:\n  replicas: [1,\n');
  await page.getByTestId('edit-review').click();
  const unread = /The text does not read: line (\d+), column \d+/.exec(await page.getByTestId('edit-error').innerText());
  assert.ok(unread, 'line and column');
  assert.deepEqual(await marked(), [Number(unread[1])]);
  // The browser logs the refused requests (409, 422) itself; nothing else.
  assert.deepEqual(app.errors.filter((e) => !/^Failed to load resource: the server responded with a status of (409|422)/.test(e)), []);
});

test('the editor colours the YAML under the caret\'s text, keeps the caret while typing, and searches', async () => {
  const { page } = app;
  const text = await openEditor(page);
  const paint = page.getByTestId('editor-paint');
  const count = replicas();
  // Colours: the replicas line is a key and a number.
  const line = paint.locator('.line').filter({ hasText: /^ {2}replicas: \d+$/ });
  assert.equal(await line.locator('.ink-key').innerText(), 'replicas');
  assert.equal(await line.locator('.ink-num').innerText(), String(count));
  assert.equal(await paint.locator('.line').filter({ hasText: /^ {6}- image: / }).locator('.ink-str').innerText(), 'registry.example/e2e/edit:1');
  // Typing keeps the focus in the text, and the painted copy follows it,
  // line for line, each line at the height of the text's own.
  await text.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('# a note');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'edit-text', 'still typing in the text');
  assert.match(await text.inputValue(), /# a note$/);
  await paint.locator('.ink-comment', { hasText: '# a note' }).waitFor({ timeout: 5000 });
  const value = await text.inputValue();
  const painted = await paint.locator('.line').evaluateAll((ls) => ls.map((l) => l.textContent));
  assert.deepEqual(painted, value.split('\n'));
  const area = await text.boundingBox();
  const last = await paint.locator('.line').last().boundingBox();
  const lineHeight = 18; // 12px at 1.5
  assert.ok(Math.abs(last.y - (area.y + 8 + (painted.length - 1) * lineHeight)) < 1, `the last painted line at ${last.y}, the text's at ${area.y + 8 + (painted.length - 1) * lineHeight}`);
  // Search: Ctrl+F, every match counted (either case), Enter and Shift+Enter
  // move, Escape selects the current match in the text.
  await text.press('Control+f');
  const box = page.getByTestId('editor-search');
  await box.waitFor({ timeout: 5000 });
  await box.fill('IMAGE');
  const lower = value.toLowerCase();
  const starts = [];
  for (let at = lower.indexOf('image'); at >= 0; at = lower.indexOf('image', at + 5)) starts.push(at);
  assert.ok(starts.length >= 2, `${starts.length} matches in the text`);
  const said = () => page.getByTestId('editor-search-count').innerText();
  assert.equal(await said(), `1 of ${starts.length}`);
  assert.equal(await paint.locator('mark').count(), starts.length);
  await box.press('Enter');
  assert.equal(await said(), `2 of ${starts.length}`);
  await box.press('Shift+Enter');
  await box.press('Shift+Enter');
  assert.equal(await said(), `${starts.length} of ${starts.length}`, 'back past the first, round to the last');
  // The current match is in the editor's view with the line numbers beside
  // it, and the text has not scrolled inside itself away from its paint.
  const seen = await page.evaluate(() => {
    const box = document.querySelector('.editor-scroll').getBoundingClientRect();
    const mark = document.querySelector('mark[data-mark=current]').getBoundingClientRect();
    const gutter = document.querySelector('.editor-lines').getBoundingClientRect();
    const area = document.querySelector('[data-testid=edit-text]');
    return { inside: mark.top >= box.top && mark.bottom <= box.bottom && mark.left >= gutter.right && mark.right <= box.right,
      gutterLeft: gutter.left - box.left, areaScroll: [area.scrollTop, area.scrollLeft] };
  });
  assert.deepEqual(seen, { inside: true, gutterLeft: 1, areaScroll: [0, 0] });
  await box.press('Escape');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'edit-text');
  const selected = await text.evaluate((t) => [t.selectionStart, t.selectionEnd]);
  assert.deepEqual(selected, [starts.at(-1), starts.at(-1) + 5]);
  assert.equal(await page.getByTestId('editor-search').count(), 0, 'the bar closed');
  await page.getByTestId('editor-find').click();
  await page.getByTestId('editor-search').fill('no such text');
  assert.equal(await said(), 'no matches');
});

test('Drift shows where the live object left what kubectl apply last applied, and only that', async () => {
  const { page } = app;
  // Made by kubectl apply with 1 replica; the edits above changed the
  // replicas, added a port and a label (which the manifest never set).
  await objectPage(page).open(app.url, 'deployments.apps', 'demo-shop', NAME);
  const drift = page.getByTestId('drift-row');
  await drift.first().waitFor({ timeout: 20000 });
  const shown = await drift.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent).join(' | ')));
  assert.deepEqual(shown, [`spec.replicas | 1 | ${replicas()}`], 'only the applied field that moved');
});
