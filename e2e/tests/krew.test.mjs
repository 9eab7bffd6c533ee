// The release as a user gets it: `make dist`'s archive installed with krew
// (built from its Go module by hack/build-krew.sh) into an empty HOME, with a
// PATH that holds kubectl and krew and nothing else (no cargo, rustc, trunk
// or node), then `kubectl glass` run from there against the real cluster.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, copyFileSync, chmodSync, rmSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, basename } from 'node:path';
import { createHash } from 'node:crypto';
import { until, freePort, env } from '../lib.mjs';


test('the release archive installs with krew into an empty HOME without Rust, and kubectl glass serves the cluster', async (t) => {
  const PORT = await freePort();
  const archive = env('KUBEGLASS_RELEASE');
  const manifest = env('KUBEGLASS_MANIFEST');
  // The manifest carries the archive's checksum.
  const sha = createHash('sha256').update(readFileSync(archive)).digest('hex');
  assert.match(readFileSync(manifest, 'utf8'), new RegExp(`sha256: ${sha}\\n`), 'the manifest names the archive\'s SHA-256');

  const home = mkdtempSync(join(tmpdir(), 'kubeglass-krew-'));
  t.after(async () => { rmSync(home, { recursive: true, force: true }); });
  // A bin folder with kubectl and krew only.
  const bin = join(home, 'bin');
  mkdirSync(bin);
  copyFileSync(env('KUBECTL'), join(bin, 'kubectl'));
  copyFileSync(env('KREW'), join(bin, 'kubectl-krew'));
  chmodSync(join(bin, 'kubectl'), 0o755);
  chmodSync(join(bin, 'kubectl-krew'), 0o755);
  const krewRoot = join(home, '.krew');
  const PATH = `${join(krewRoot, 'bin')}:${bin}`;
  const userEnv = { HOME: home, PATH, KREW_ROOT: krewRoot, KUBECONFIG: env('KUBECONFIG') };
  for (const tool of ['cargo', 'rustc', 'trunk', 'node', 'go']) {
    const found = spawnSync('/bin/sh', ['-c', `command -v ${tool}`], { env: userEnv });
    assert.notEqual(found.status, 0, `${tool} is not on the user's PATH`);
  }
  // (krew's index is never fetched: the manifest and archive are given.)
  const install = spawnSync(join(bin, 'kubectl'), ['krew', 'install', `--manifest=${manifest}`, `--archive=${archive}`],
    { env: userEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  assert.equal(install.status, 0, `krew install: ${install.stdout}${install.stderr}`);
  assert.match(install.stdout + install.stderr, /Installed plugin: glass/);
  assert.ok(existsSync(join(krewRoot, 'bin', 'kubectl-glass')), 'krew linked the plugin');

  // Run as a user would: kubectl finds the plugin on PATH.
  const child = spawn(join(bin, 'kubectl'), ['glass', '--no-open', '--port', String(PORT)],
    { env: userEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const exited = new Promise((r) => child.once('close', r));
  try {
    assert.ok(await until(async () => /Private folder: /.test(out) || child.exitCode !== null, 30000), `no URL: ${out}`);
    const printed = /http:\/\/[0-9a-f]{32}\.localhost:(\d+)(\/[0-9a-f]{32}\/ui\/)/.exec(out);
    assert.ok(printed, `a URL: ${out}`);
    // As a program reaches it (only a browser resolves the printed name).
    const url = `http://127.0.0.1:${printed[1]}${printed[2]}`;
    const api = url.slice(0, url.indexOf('/ui/'));
    const version = await (await fetch(`${api}/version`)).json();
    assert.equal(version.gitVersion, process.env.KUBE_VERSION ?? version.gitVersion, 'the cluster answers through it');
    const index = await fetch(url);
    assert.equal(index.status, 200);
    assert.match(await index.text(), /<html/i, 'the app inside the binary');
    console.log(`# installed ${basename(archive)} with krew; the binary in ${dirname(join(krewRoot, 'bin', 'kubectl-glass'))}`);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
});
