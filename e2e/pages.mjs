// Page objects for the end-to-end tests: what a test reads from the
// resource table, an object page, the event stream and a log view, written
// once. Each takes a Playwright page, or a locator to look inside (one
// table of several).

/** The app's URL for a hash route (`#/o/…`, `#/r/…`). */
const at = (base, hash) => `${base}${hash}`;

/** A resource table (`#/r/…`). */
export function table(scope) {
  const rows = () => scope.getByTestId('resource-row');
  return {
    rows,
    /** The row of `namespace/name` (or `name` for cluster-scoped kinds). */
    row: (key) => scope.locator(`[data-testid="resource-row"][data-key="${key}"]`),
    /** Waits for the first row. */
    loaded: (timeout = 20000) => rows().first().waitFor({ timeout }),
    /**
     * The keys of the rows drawn, in their order on screen: rows are a ring
     * of reused elements, so the order is aria-rowindex, not the DOM's.
     */
    keys: () => rows().evaluateAll((rs) => [...rs]
      .sort((a, b) => Number(a.getAttribute('aria-rowindex')) - Number(b.getAttribute('aria-rowindex')))
      .map((r) => r.getAttribute('data-key')).filter(Boolean)),
    /**
     * The header names (upper case, without the sort arrow) and the rows
     * drawn, in screen order, each with its key and cells' text; `cell(row,
     * name)` reads one by its column's name.
     */
    async grid() {
      // The row's data cells: not its mark box, not a pod row's Shell link.
      const DATA_CELLS = '[role=cell]:not(.mark):not(.shell-cell)';
      const headers = await scope.getByTestId('column-header')
        .evaluateAll((hs) => hs.map((h) => h.innerText.replace(/ [▲▼]$/, '').trim().toUpperCase()));
      const drawn = await rows().evaluateAll((rs, cells) => [...rs]
        .filter((r) => r.dataset.key)
        .sort((a, b) => Number(a.getAttribute('aria-rowindex')) - Number(b.getAttribute('aria-rowindex')))
        .map((r) => ({ key: r.dataset.key, cells: [...r.querySelectorAll(cells)].map((c) => c.innerText) })), DATA_CELLS);
      return { headers, rows: drawn, cell: (row, name) => row.cells[headers.indexOf(name)] };
    },
    /** The count line ("N of M", "first N of M — loading the rest"), '' while absent. */
    count: () => scope.getByTestId('row-count').innerText().catch(() => ''),
  };
}

/** An object page (`#/o/resource/namespace/name`). */
export const objectPage = (page) => ({
  /** Opens it and waits for its title. */
  async open(base, resource, namespace, name) {
    const path = namespace ? `${resource}/${namespace}/${name}` : `${resource}/${name}`;
    await page.goto(at(base, `#/o/${path}`));
    await page.getByTestId('object-title').waitFor({ timeout: 20000 });
  },
  title: () => page.getByTestId('object-title').innerText(),
  /** Opens its Edit and waits for the editor's text, which it returns. */
  async edit() {
    await page.getByTestId('action-edit').click({ timeout: 20000 });
    const text = page.getByTestId('edit-text');
    await text.waitFor();
    return text;
  },
});

/** The event stream (`#/events`, or an object page's events). */
export function eventStream(scope) {
  const rows = () => scope.getByTestId('event-row');
  return {
    rows,
    /** Rows whose text has `text` (a string or a RegExp). */
    withText: (text) => rows().filter({ hasText: text }),
    loaded: (timeout = 20000) => rows().first().waitFor({ timeout }),
  };
}

/** A log view (a pod's or a workload's). */
export function logView(page) {
  const lines = () => page.getByTestId('log-line');
  return {
    lines,
    /** Each line's text, without its time stamp or source. */
    texts: () => lines().evaluateAll((els) => els.map((e) => e.querySelector('.log-text').textContent)),
    loaded: (timeout = 15000) => lines().first().waitFor({ timeout }),
  };
}

/** A shell's page (`#/exec/…`): its terminal's rows and its state line. */
export function shellView(page) {
  const rows = () => page.getByTestId('term-row');
  return {
    /** The screen's rows as text (trailing blanks cut), top to bottom. */
    lines: () => rows().evaluateAll((rs) => rs.map((r) => r.textContent.replace(/\s+$/, ''))),
    /** The state line's state (`open`, `ended`, `lost`…) and words. */
    state: async () => {
      const s = page.getByTestId('exec-state');
      return { state: await s.getAttribute('data-state'), words: await s.innerText() };
    },
    /** Types `text` and Enter into the terminal (it has the focus). */
    run: async (text) => {
      await page.getByTestId('terminal-input').focus();
      await page.keyboard.type(text);
      await page.keyboard.press('Enter');
    },
  };
}

/**
 * The app's frame around every page: ready once the server's version is
 * drawn (the first page waits for it), and the version it shows.
 */
export function frame(page) {
  const version = () => page.getByTestId('server-version');
  return {
    ready: (timeout = 20000) => version().waitFor({ timeout }),
    version: async () => (await version().innerText()).trim(),
  };
}

/** A table's bar for marked rows (`bulk-bar`) and its confirmation. */
export function bulkBar(page) {
  const confirm = page.getByTestId('bulk-confirm');
  return {
    /** The words of the count ("3 marked"). */
    count: () => page.getByTestId('bulk-count').innerText(),
    /** Waits until the count says `words` exactly. */
    countIs: (words, timeout = 15000) => page.getByTestId('bulk-count')
      .filter({ hasText: new RegExp(`^${words}$`) }).waitFor({ timeout }),
    /** A verb's button (`delete`, `label`, `annotate`, `scale`, …). */
    verb: (v) => page.getByTestId(`bulk-${v}`),
    /** Waits for the bar to go (nothing marked). */
    gone: () => page.getByTestId('bulk-bar').waitFor({ state: 'detached' }),
    clear: () => page.getByTestId('bulk-clear').click(),
    confirm: {
      root: confirm,
      question: () => confirm.getByTestId('bulk-question').innerText(),
      /** Waits until the line of counts has `text` in it. */
      tally: (text, timeout = 20000) => confirm.getByTestId('bulk-tally').filter({ hasText: text }).waitFor({ timeout }),
      input: () => confirm.getByTestId('bulk-input'),
      go: () => confirm.getByTestId('bulk-go').click(),
      close: () => confirm.getByTestId('bulk-close').click(),
      /** One object's fate (`data-state`: queued, done, refused, failed, skipped). */
      result: (key) => confirm.locator(`[data-testid=bulk-result][data-key="${key}"]`),
      results: (state) => confirm.locator(`[data-testid=bulk-result][data-state=${state}]`),
    },
  };
}

/**
 * The YAML editor of an object's Edit (`prefix` 'edit') or of Create
 * (`prefix` 'create'): its text, Review and Apply.
 */
export function editor(page, prefix = 'edit') {
  const id = (what) => page.getByTestId(`${prefix}-${what}`);
  return {
    text: () => id('text'),
    /** Review, then wait for the review (an edit's table of fields). */
    review: async (timeout = 15000) => {
      await id('review').click();
      if (prefix === 'edit') await page.getByTestId('review').waitFor({ timeout });
    },
    /** Apply; an edit then waits for the editor to close, and says what it showed if it stayed. */
    apply: async (timeout = 15000) => {
      await id('apply').click();
      if (prefix !== 'edit') return;
      const open = page.getByTestId('editor');
      await open.waitFor({ state: 'detached', timeout }).catch(async (e) => {
        throw new Error(`the editor stayed open: ${(await open.innerText().catch(() => '')).slice(0, 1500)}`, { cause: e });
      });
    },
  };
}

/** The command palette (`:` opens it): runs a line as a person types it. */
export function palette(page) {
  const input = () => page.getByTestId('palette-input');
  return {
    input,
    /** Opens the palette with `:`, types `line` and presses Enter. */
    run: async (line) => {
      await page.keyboard.press(':');
      await input().waitFor({ timeout: 5000 });
      await input().fill(line);
      await input().press('Enter');
    },
  };
}

/** The X-ray page: an informer's row by its path, and the counts. */
export function xray(page) {
  return {
    loaded: (timeout = 20000) => page.getByTestId('xray-page').waitFor({ timeout }),
    informers: () => page.getByTestId('xray-informer'),
    /** The informer whose path has `text`. */
    informer: (text) => page.getByTestId('xray-informer').filter({ hasText: text }),
    count: async (what) => Number(await page.getByTestId(`xray-${what}`).innerText()),
    queues: () => page.getByTestId('xray-queues').innerText(),
  };
}
