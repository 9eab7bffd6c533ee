// What each page's part of the split wasm weighs: its `split_<page>` file
// and every chunk it loads (the loader, dist/__wasm_split-*.js, lists them;
// chunks are shared, so the rows do not add up), raw, gzip -9 and brotli
// q11 as the launcher serves them. `node hack/wasm-parts.mjs [dist]` after
// `bash hack/build-app.sh`.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync, brotliCompressSync, constants } from 'node:zlib';

const dist = process.argv[2] ?? 'dist';
const loader = readdirSync(dist).find((f) => /^__wasm_split-.*\.js$/.test(f));
const js = readFileSync(join(dist, loader), 'utf8');
// Each loader: its file and the loaders it waits for.
const re = /const (__chunk_\d+) = makeLoad\(\(\) => \{\s*const src = fetch\(new URL\("\.\/([^"]+)"[\s\S]*?\n, \[([^\]]*)\]\);|export const __wasm_split_load_(\w+) = wrapAsyncCb\(makeLoad\(\(\) => \{\s*const src = fetch\(new URL\("\.\/([^"]+)"[\s\S]*?\n, \[([^\]]*)\]\)\);/g;
const chunks = new Map();
const parts = new Map();
for (const m of js.matchAll(re)) {
  const deps = (m[3] ?? m[6]).split(',').map((d) => d.trim()).filter(Boolean);
  if (m[1]) chunks.set(m[1], { file: m[2], deps });
  else parts.set(m[4], { file: m[5], deps });
}
const files = (deps, seen = new Set()) => {
  for (const d of deps) {
    if (seen.has(d)) continue;
    seen.add(d);
    files(chunks.get(d)?.deps ?? [], seen);
  }
  return seen;
};
const size = (names) => {
  let raw = 0; let gz = 0; let br = 0;
  for (const f of names) {
    const bytes = readFileSync(join(dist, f));
    raw += bytes.length;
    gz += gzipSync(bytes, { level: 9 }).length;
    br += brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  }
  return { raw, gz, br };
};
const fmt = (n) => n.toLocaleString('en-US');
const loads = new Map([...parts].map(([name, p]) => [name, [p.file, ...[...files(p.deps)].map((c) => chunks.get(c).file)]]));
const users = new Map();
for (const names of loads.values()) for (const f of names) users.set(f, (users.get(f) ?? 0) + 1);
console.log('| part | files | raw | gzip -9 | brotli | its own files (no other part loads them), raw |\n|---|---:|---:|---:|---:|---:|');
const rows = [...loads].map(([name, names]) => ({
  name, n: names.length, ...size(names), own: size(names.filter((f) => users.get(f) === 1)).raw,
})).sort((a, b) => b.raw - a.raw);
for (const r of rows) console.log(`| ${r.name} | ${r.n} | ${fmt(r.raw)} B | ${fmt(r.gz)} B | ${fmt(r.br)} B | ${fmt(r.own)} B |`);
