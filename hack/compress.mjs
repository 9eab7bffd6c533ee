// Writes a brotli (.br) and a gzip (.gz) copy beside each text or wasm file
// of the built app, at the highest levels: kubectl glass serves them by the
// browser's Accept-Encoding, so compression costs nothing at run time.
// Node's own zlib does both; nothing is downloaded.
//
// Usage: node hack/compress.mjs dist
import { readdirSync, readFileSync, writeFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';

const dir = process.argv[2];
if (!dir) throw new Error('usage: node hack/compress.mjs <dist folder>');
const kinds = /\.(wasm|js|css|html|svg|json)$/;
let raw = 0, br = 0, gz = 0;
for (const name of readdirSync(dir, { recursive: true })) {
  const path = join(dir, String(name));
  if (!kinds.test(path) || !statSync(path).isFile() || statSync(path).size < 1024) continue;
  const data = readFileSync(path);
  const b = brotliCompressSync(data, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
      [constants.BROTLI_PARAM_MODE]: path.endsWith('.wasm') ? constants.BROTLI_MODE_GENERIC : constants.BROTLI_MODE_TEXT,
    },
  });
  const g = gzipSync(data, { level: 9 });
  writeFileSync(`${path}.br`, b);
  writeFileSync(`${path}.gz`, g);
  raw += data.length; br += b.length; gz += g.length;
}
console.log(`compressed: ${raw} B raw, ${br} B brotli, ${gz} B gzip`);
