// Columns of your own: kubectl's custom-columns typed on a table, equal to
// `kubectl get -o custom-columns` cell for cell, sortable and filterable,
// kept in the URL and remembered per resource, live; a spec that does not
// read says where; a Secret's columns read its metadata only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withApp, apply, kubectl, cleanUp, until } from '../lib.mjs';
import { table } from '../pages.mjs';

const NS = 'demo-shop';
const SUFFIX = `${Date.now() % 1000000}`;
const TWO = `e2e-two-images-${SUFFIX}`;
const LATE = `e2e-late-${SUFFIX}`;
const SPEC = 'IMAGE:.spec.containers[*].image';

const app = withApp();

/** kubectl's own cells: name → IMAGE. */
function kubectlImages() {
  const out = kubectl('-n', NS, 'get', 'pods', '-o', `custom-columns=NAME:.metadata.name,${SPEC}`, '--no-headers');
  return new Map(out.trim().split('\n').map((l) => l.trim().split(/\s+/)));
}

const pod = (name, images) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS, labels: { 'e2e-columns': SUFFIX } },
  spec: { containers: images.map((image, i) => ({ name: `c${i}`, image })) },
});

/** The IMAGE cell of every row drawn, by name. */
async function shown(page) {
  const g = await table(page).grid();
  return new Map(g.rows.map((r) => [r.key.split('/')[1], g.cell(r, 'IMAGE')]));
}

test('a custom column equals kubectl custom-columns cell for cell, sorts, filters and stays live', async (t) => {
  t.after(() => cleanUp(['-n', NS, 'delete', 'pod', '-l', `e2e-columns=${SUFFIX}`, '--ignore-not-found', '--wait=false']));
  apply(pod(TWO, ['registry.example/e2e/a:1', 'registry.example/e2e/b:2']));
  const { page } = app;
  await page.goto(`${app.url}#/r/pods?ns=${NS}&c=${encodeURIComponent(SPEC)}`);
  await table(page).loaded();
  const want = kubectlImages();
  assert.equal(want.get(TWO), 'registry.example/e2e/a:1,registry.example/e2e/b:2', 'kubectl joins them with a comma');
  let got = new Map();
  assert.ok(await until(async () => {
    got = await shown(page);
    return [...want].every(([name, image]) => got.get(name) === image);
  }, 20000), `every cell as kubectl prints it:\n${JSON.stringify([...want])}\n${JSON.stringify([...got])}`);
  assert.equal(got.size, want.size, 'the same pods');

  // Sorted by it, as any column.
  await page.getByTestId('column-header').filter({ hasText: 'IMAGE' }).click();
  const images = (await table(page).grid()).rows.map((r) => r.cells.at(-1));
  assert.deepEqual(images, [...images].sort(), `ascending: ${images}`);
  // Filtered by it.
  await page.getByTestId('row-filter').fill('e2e/b:2');
  assert.ok(await until(async () => (await table(page).keys()).join() === `${NS}/${TWO}`, 5000), 'the filter reads the cells');
  await page.getByTestId('row-filter').fill('');

  // Live: a pod made now has its cell.
  apply(pod(LATE, ['registry.example/e2e/late:3']));
  assert.ok(await until(async () => (await shown(page)).get(LATE) === 'registry.example/e2e/late:3', 15000), 'a new pod\'s cell');
});

test('the spec is in the URL and remembered per resource; a wrong one says where; cleared, the column goes', async () => {
  const { page } = app;
  await page.goto(`${app.url}#/r/pods?ns=${NS}`);
  await table(page).loaded();
  const input = page.getByTestId('custom-columns-input');
  await input.fill(`${SPEC},NODE:.spec.nodeName`);
  await input.press('Enter');
  assert.ok(await until(async () => (await table(page).grid()).headers.includes('NODE'), 15000), 'applied');
  assert.match(decodeURIComponent(page.url()), /c=IMAGE:\.spec\.containers\[\*\]\.image,NODE:\.spec\.nodeName/);
  // Remembered: the same table without c= has them.
  await page.goto(`${app.url}#/r/pods?ns=${NS}`);
  assert.ok(await until(async () => (await table(page).grid()).headers.includes('NODE'), 15000), 'remembered');
  assert.equal(await input.inputValue(), `${SPEC},NODE:.spec.nodeName`);
  // Another resource has its own (none).
  await page.goto(`${app.url}#/r/configmaps?ns=${NS}`);
  await table(page).loaded();
  assert.ok(!(await table(page).grid()).headers.includes('NODE'));

  await page.goto(`${app.url}#/r/pods?ns=${NS}`);
  // The remembered columns come once the table's own list is in.
  assert.ok(await until(async () => (await table(page).grid()).headers.includes('NODE'), 15000), 'remembered again');
  await input.fill('IMAGE:.spec.containers[*.image');
  await input.press('Enter');
  assert.equal(await page.getByTestId('custom-columns-error').innerText({ timeout: 5000 }),
    'Columns: column 1: this [ is never closed at character 17 of ".spec.containers[*.image"');
  assert.ok((await table(page).grid()).headers.includes('NODE'), 'the columns shown stay');
  await input.fill('');
  await input.press('Enter');
  assert.ok(await until(async () => !(await table(page).grid()).headers.includes('NODE'), 10000), 'cleared');
  assert.doesNotMatch(page.url(), /c=/);
});

test('a Secret\'s own columns read its metadata only: its data is never fetched for a column', async () => {
  const { page } = app;
  const secret = `e2e-columns-secret-${SUFFIX}`;
  kubectl('-n', NS, 'create', 'secret', 'generic', secret, '--from-literal=password=never-shown');
  try {
    await page.goto(`${app.url}#/r/secrets?ns=${NS}&c=${encodeURIComponent('PASSWORD:.data.password,OBJECT:.metadata.name')}`);
    const row = table(page).row(`${NS}/${secret}`);
    await row.waitFor({ timeout: 20000 });
    let g;
    assert.ok(await until(async () => {
      g = await table(page).grid();
      const r = g.rows.find((x) => x.key === `${NS}/${secret}`);
      return r && g.cell(r, 'OBJECT') === secret;
    }, 15000), 'the metadata columns fill');
    const r = g.rows.find((x) => x.key === `${NS}/${secret}`);
    assert.equal(g.cell(r, 'PASSWORD'), '<none>');
    assert.ok(!(await page.content()).includes(Buffer.from('never-shown').toString('base64')));
  } finally {
    cleanUp(['-n', NS, 'delete', 'secret', secret, '--ignore-not-found']);
  }
});
