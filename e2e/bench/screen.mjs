// A terminal screen just large enough to read what a full-screen terminal
// program (k9s, through tcell) shows: the bytes it writes to its terminal
// are applied to a grid of cells (printable characters, cursor moves and
// positioning, erasing), and colours, modes and queries are skipped.
// tcell redraws only the cells that changed, so a count that goes from
// 19,998 to 20,000 arrives as a cursor move and three characters: stripping
// the escapes from the stream and searching it would miss it; reading the
// grid does not.

// Display width of a code point: 2 for East Asian wide characters and
// emoji, 0 for combining marks and variation selectors, else 1. Rough, but
// exact for everything on k9s's table titles.
const width = (cp) => {
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0xfe00 && cp <= 0xfe0f) || cp === 0x200d) return 0;
  if ((cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3)
    || (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xff00 && cp <= 0xff60) || (cp >= 0x1f000 && cp <= 0x1faff)) return 2;
  return 1;
};

export class Screen {
  constructor(cols, rows) {
    this.cols = cols;
    this.rows = rows;
    this.grid = Array.from({ length: rows }, () => Array(cols).fill(' '));
    this.x = 0;
    this.y = 0;
    this.decoder = new TextDecoder('utf-8');
    // Escape sequence in progress across chunks: '' when none.
    this.pending = '';
  }

  /** Applies bytes the program wrote (a Buffer). */
  write(bytes) {
    const text = this.pending + this.decoder.decode(bytes, { stream: true });
    this.pending = '';
    let i = 0;
    while (i < text.length) {
      const c = text[i];
      if (c === '\x1b') {
        const end = this.escape(text, i);
        if (end < 0) { this.pending = text.slice(i); return; }
        i = end;
        continue;
      }
      const cp = text.codePointAt(i);
      i += cp > 0xffff ? 2 : 1;
      if (c === '\r') this.x = 0;
      else if (c === '\n' || c === '\v' || c === '\f') this.y = Math.min(this.rows - 1, this.y + 1);
      else if (c === '\b') this.x = Math.max(0, this.x - 1);
      else if (c === '\t') this.x = Math.min(this.cols - 1, (Math.floor(this.x / 8) + 1) * 8);
      else if (cp >= 0x20 && cp !== 0x7f) this.put(String.fromCodePoint(cp), width(cp));
    }
  }

  put(ch, w) {
    if (w === 0) return;
    if (this.x + w > this.cols) { this.x = 0; this.y = Math.min(this.rows - 1, this.y + 1); }
    this.grid[this.y][this.x] = ch;
    if (w === 2 && this.x + 1 < this.cols) this.grid[this.y][this.x + 1] = '';
    this.x += w;
  }

  /** Applies the escape sequence at `i`; returns where it ends, or -1 if it is cut off. */
  escape(text, i) {
    const next = text[i + 1];
    if (next === undefined) return -1;
    if (next === '[') {
      const m = /^\x1b\[([\x30-\x3f]*)([\x20-\x2f]*)([\x40-\x7e])/.exec(text.slice(i, i + 64));
      if (!m) return text.length - i < 64 ? -1 : i + 2;
      this.csi(m[1], m[3]);
      return i + m[0].length;
    }
    if (next === ']' || next === 'P' || next === '_' || next === '^') {
      // OSC, DCS, APC, PM: up to BEL or ST.
      for (let j = i + 2; j < text.length; j++) {
        if (text[j] === '\x07') return j + 1;
        if (text[j] === '\x1b' && text[j + 1] === '\\') return j + 2;
      }
      return -1;
    }
    // ESC ( B and the like: one intermediate and a final byte.
    if (next >= '\x20' && next <= '\x2f') return text.length > i + 2 ? i + 3 : -1;
    return i + 2;
  }

  csi(params, final) {
    if (params.startsWith('?') || params.startsWith('>') || params.startsWith('=')) return; // modes, queries
    const p = params.split(';').map((s) => (s === '' ? NaN : Number(s)));
    const n = (k, d) => (Number.isNaN(p[k]) || p[k] === undefined ? d : p[k]);
    const clampX = (x) => Math.max(0, Math.min(this.cols - 1, x));
    const clampY = (y) => Math.max(0, Math.min(this.rows - 1, y));
    switch (final) {
      case 'H': case 'f': this.y = clampY(n(0, 1) - 1); this.x = clampX(n(1, 1) - 1); break;
      case 'A': this.y = clampY(this.y - n(0, 1)); break;
      case 'B': this.y = clampY(this.y + n(0, 1)); break;
      case 'C': this.x = clampX(this.x + n(0, 1)); break;
      case 'D': this.x = clampX(this.x - n(0, 1)); break;
      case 'G': this.x = clampX(n(0, 1) - 1); break;
      case 'd': this.y = clampY(n(0, 1) - 1); break;
      case 'K': this.erase(this.y, n(0, 0)); break;
      case 'J': {
        const mode = n(0, 0);
        if (mode === 2 || mode === 3) this.grid.forEach((row) => row.fill(' '));
        else if (mode === 0) { this.erase(this.y, 0); for (let y = this.y + 1; y < this.rows; y++) this.grid[y].fill(' '); }
        else if (mode === 1) { this.erase(this.y, 1); for (let y = 0; y < this.y; y++) this.grid[y].fill(' '); }
        break;
      }
      case 'X': this.grid[this.y].fill(' ', this.x, Math.min(this.cols, this.x + n(0, 1))); break;
      default: break; // colours (m) and the rest change no text
    }
  }

  erase(y, mode) {
    const row = this.grid[y];
    if (mode === 0) row.fill(' ', this.x);
    else if (mode === 1) row.fill(' ', 0, this.x + 1);
    else row.fill(' ');
  }

  /** The screen as lines of text. */
  lines() { return this.grid.map((row) => row.join('')); }
}
