// Bulk delete measurements (not a test; it asserts nothing about time):
// 500 ConfigMaps marked with "all that match the filter" and deleted from
// one confirmation, over the whole real path (each object's access review,
// then each delete through the app's action queue: its discovery check and
// its DELETE, kubectl glass, kubectl proxy, the apiserver). Reports the
// reviews' time, the time from the confirmation's click to the last
// object's result, and the requests per second the browser sent meanwhile.
//
//   node e2e/bench/bulk.mjs <the app's URL, as make demo prints it> [N]
//
// Needs KUBECTL and KUBECONFIG. It creates namespace bench-bulk and
// deletes it at the end.
import { execFileSync } from 'node:child_process';
import { launchChromium } from './lib.mjs';

const [url, count = '500'] = process.argv.slice(2);
if (!url) throw new Error('usage: node e2e/bench/bulk.mjs <the app URL> [N]');
const N = Number(count);
const NS = 'bench-bulk';
const env = (k) => process.env[k] ?? (() => { throw new Error(`${k} is not set`); })();
const kubectl = (...args) => execFileSync(env('KUBECTL'), ['--kubeconfig', env('KUBECONFIG'), ...args], { encoding: 'utf8' });

kubectl('delete', 'namespace', NS, '--ignore-not-found', '--wait=true');
kubectl('create', 'namespace', NS);
execFileSync(env('KUBECTL'), ['--kubeconfig', env('KUBECONFIG'), 'apply', '-f', '-'], {
  input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: Array.from({ length: N }, (_, i) => ({
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `bulk-${i}`, namespace: NS }, data: { i: String(i) } })) }),
  maxBuffer: 64 << 20,
});

const browser = await launchChromium();
const page = await browser.newPage();
const requests = [];
page.on('request', (r) => requests.push({ at: Date.now(), method: r.method(), url: r.url() }));
await page.goto(`${url}#/r/configmaps?ns=${NS}`);
await page.locator(`[data-testid=resource-row][data-key="${NS}/bulk-0"]`).waitFor({ timeout: 60000 });
await page.getByTestId('row-filter').fill('bulk-');
await page.getByTestId('mark-all').check();
await page.getByTestId('bulk-delete').waitFor({ timeout: 30000 });
const asked = Date.now();
await page.getByTestId('bulk-delete').click();
const tally = page.getByTestId('bulk-tally');
await tally.filter({ hasText: `${N} will be sent` }).waitFor({ timeout: 120000 });
const reviewed = Date.now();
const from = requests.length;
const t0 = Date.now();
await page.getByTestId('bulk-go').click();
await tally.filter({ hasText: `${N} done, 0 refused, 0 failed, 0 to go` }).waitFor({ timeout: 600000 });
const ms = Date.now() - t0;
const during = requests.slice(from);
const deletes = during.filter((r) => r.method === 'DELETE').length;
console.log(`reviews before the confirmation: ${reviewed - asked} ms`);
console.log(`${N} deletes: ${ms} ms from the click to the last result (${(N / (ms / 1000)).toFixed(1)} objects/s)`);
console.log(`requests meanwhile: ${during.length} (${deletes} DELETE), ${(during.length / (ms / 1000)).toFixed(1)} requests/s`);
const left = kubectl('-n', NS, 'get', 'configmaps', '-o', 'name').split('\n').filter((n) => n.startsWith('configmap/bulk-')).length;
console.log(`kubectl: ${left} of the ${N} left`);
await browser.close();
kubectl('delete', 'namespace', NS, '--wait=false');
