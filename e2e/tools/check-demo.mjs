// Checks a running `make demo` the way the foundation issue asks: a headless
// Chromium page load shows the server's gitVersion and kube-system, and
// `kubectl scale` on a demo Deployment changes the shown pod count.
//
//   node e2e/tools/check-demo.mjs     (with `make demo` running in another terminal)
//
// It scales demo-shop/cart (which the churn leaves alone) up by 2 and back, and prints what it saw.
import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_FLAGS } from '../chromium.mjs';

const url = process.env.KUBEGLASS_URL ?? 'http://127.0.0.1:8001/ui/';
const kubeconfig = process.env.KUBECONFIG ?? `${homedir()}/.cache/kubeglass/cluster/admin.kubeconfig`;
const kubectl = (...a) => execFileSync(process.env.KUBECTL ?? 'kubectl', ['--kubeconfig', kubeconfig, ...a], { encoding: 'utf8' });
const fail = (m) => { console.error(`FAIL: ${m}`); process.exitCode = 1; };

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: [...CHROMIUM_FLAGS],
});
try {
  const page = await browser.newPage();
  await page.goto(url);
  const version = (await page.getByTestId('server-version').innerText({ timeout: 20000 })).trim();
  const expected = JSON.parse(kubectl('version', '-o', 'json')).serverVersion.gitVersion;
  console.log(`server version shown: ${version} (kubectl says ${expected})`);
  if (version !== expected) fail('the version differs');
  const ks = page.getByTestId('namespace-row').filter({ hasText: 'kube-system' });
  await ks.waitFor({ timeout: 20000 });
  console.log('kube-system is listed');

  const count = async () => Number((await page.getByTestId('pod-count').innerText()).trim());
  const waitFor = async (want, ms = 20000) => {
    const t0 = Date.now();
    while (Date.now() - t0 < ms) {
      if ((await count()) === want) return Date.now() - t0;
      await page.waitForTimeout(50);
    }
    return null;
  };
  // Let the page settle.
  await page.waitForTimeout(1000);
  const replicas = Number(kubectl('-n', 'demo-shop', 'get', 'deployment', 'cart', '-o', 'jsonpath={.spec.replicas}'));
  const before = await count();
  kubectl('-n', 'demo-shop', 'scale', 'deployment/cart', `--replicas=${replicas + 2}`);
  const up = await waitFor(before + 2);
  console.log(up === null ? `pod count stayed at ${await count()}` : `pod count ${before} -> ${before + 2} in ${up} ms after kubectl scale`);
  if (up === null) fail('the pod count did not follow the scale-up');
  kubectl('-n', 'demo-shop', 'scale', 'deployment/cart', `--replicas=${replicas}`);
  const down = await waitFor(before);
  console.log(down === null ? `pod count stayed at ${await count()}` : `pod count back to ${before} in ${down} ms`);
  if (down === null) fail('the pod count did not follow the scale-down');
} finally {
  await browser.close();
}
