// The one list of how every script here runs Chromium: Debian's binary
// (never a downloaded one) and its flags, read from chromium.json, which
// crates/web/webdriver.json must agree with (`make test` checks).
import { readFileSync } from 'node:fs';

const spec = JSON.parse(readFileSync(new URL('./chromium.json', import.meta.url), 'utf8'));

/** Debian's Chromium. */
export const CHROMIUM = spec.binary;
/** The flags every test, benchmark and script starts it with. */
export const CHROMIUM_FLAGS = Object.freeze([...spec.flags]);
