// Page objects for the end-to-end tests: what a test reads from a page
// (the resource table, an object page, the event stream, a log view, the
// overview, changes, Top, forwards, the API tree, create…), written once. Each takes a Playwright page, or a locator to look inside (one
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
    /** The connection banner ("Connecting…", "Cannot reach the Kubernetes API…"). */
    banner: () => page.getByTestId('connection-banner'),
    /** The navigation's link to `name` (`create`, `changes`, `forwards`…). */
    nav: (name) => page.getByTestId(`nav-${name}`),
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
    /** The metrics polls' rows. */
    polls: () => page.getByTestId('xray-poll'),
    /** The change timeline's line (its rows and bytes held). */
    timeline: () => page.getByTestId('xray-timeline'),
  };
}

/** The overview (`#/`): the namespaces' table and its pod counts. */
export function overview(page) {
  const namespace = (ns) => page.getByTestId('namespace-row').filter({ hasText: ns });
  return {
    /** The namespace's row (the row whose text has `ns`). */
    namespace,
    /** The pods the namespace's row counts. */
    podsIn: async (ns) => Number((await namespace(ns).locator('td.num').innerText()).trim()),
    /** The namespaces' table as text. */
    text: () => page.getByTestId('namespace-table').innerText(),
    /** What the pod informer says of itself. */
    informerState: () => page.getByTestId('pod-informer-state').innerText(),
  };
}

/** The change timeline (`#/changes`): its rows, a row's diff, the filters, pause and the recorded kinds. */
export function changes(page) {
  const rows = () => page.getByTestId('change-row');
  const kinds = () => page.getByTestId('changes-kind');
  const addKind = () => page.getByTestId('changes-add-kind');
  return {
    /** Opens it in a fresh load of the app (recording starts there) and waits until Deployments and Events record. */
    async open(base) {
      await page.goto('about:blank');
      await page.goto(at(base, '#/changes'));
      // The kinds are listed folded away (attached, not visible).
      for (const kind of ['Deployment', 'Event']) {
        await page.locator(`[data-testid=changes-kind][data-kind=${kind}]`).filter({ hasText: 'recording' })
          .waitFor({ state: 'attached', timeout: 20000 });
      }
    },
    rows,
    /** The rows shown, in screen order, each as 'op | kind | object | managers | summary'. */
    texts: () => rows().evaluateAll((rs) => rs
      .sort((a, b) => Number(a.getAttribute('aria-rowindex')) - Number(b.getAttribute('aria-rowindex')))
      .map((r) => [...r.querySelectorAll('[role=cell]')].slice(1).map((c) => c.textContent).join(' | '))),
    /** The rows whose text has `text` (a string or a RegExp), of the op `op` if given. */
    row: (text, op) => (op ? page.locator(`[data-testid=change-row][data-op=${op}]`) : rows()).filter({ hasText: text }),
    /** The sequence numbers of the rows whose text has `text`. */
    seqs: (text) => rows().filter({ hasText: text }).evaluateAll((rs) => rs.map((r) => Number(r.dataset.seq))),
    /** The line that says since when it records. */
    since: () => page.getByTestId('changes-since').innerText(),
    /** The count line ("N of M changes", folded, paused). */
    count: () => page.getByTestId('changes-count'),
    /** Waits until the count line has `text` in it. */
    countSays: (text, timeout) => page.getByTestId('changes-count').filter({ hasText: text }).waitFor({ timeout }),
    /** The toggle that shows status-only updates. */
    statusOnly: () => page.getByTestId('change-status-only'),
    /** The open row's diff rows. */
    diff: () => page.getByTestId('change-diff-row'),
    /** The open row's detail as text. */
    detail: () => page.getByTestId('change-detail').innerText(),
    /** Filters by manager (`''` clears). */
    manager: (text) => page.getByTestId('change-manager').fill(text),
    /** Filters by kind (`''` is every kind). */
    kind: (kind) => page.getByTestId('change-kind').selectOption(kind),
    /** Types into the text filter (`''` clears). */
    filter: (text) => page.getByTestId('change-filter').fill(text),
    /** The text filter's error (a bad pattern). */
    filterError: () => page.getByTestId('change-filter-error'),
    /** Pause, or resume. */
    pause: () => page.getByTestId('change-pause').click(),
    /** Unfolds the list of recorded kinds. */
    openKinds: () => page.getByTestId('changes-kinds').locator('summary').click(),
    /** Asks to record `name` (a resource's plural), as typed and Enter. */
    async addKind(name) {
      await addKind().fill(name);
      await addKind().press('Enter');
    },
    /** Waits until a recorded kind's line has `text` in it. */
    kindSays: (text, timeout) => kinds().filter({ hasText: text }).waitFor({ timeout }),
  };
}

/** Top (`#/top`): its pods' and nodes' tables (`which`: 'pods' or 'nodes'), their order and filter, and right-sizing. */
export function top(page) {
  const section = (which) => page.getByTestId(`top-${which}`);
  return {
    loaded: (timeout = 20000) => page.getByTestId('top-page').waitFor({ timeout }),
    /** The pods' or nodes' table (`data-version` is the metrics API's version it reads). */
    section,
    /** The table's rows. */
    rows: (which) => section(which).getByTestId('top-row'),
    /** Each row's key, CPU in millicores, memory in bytes and its line's points. */
    figures: (which) => section(which).getByTestId('top-row').evaluateAll((trs) => trs.map((tr) => ({
      key: tr.dataset.key, cpu: Number(tr.dataset.cpuMillis), memory: Number(tr.dataset.memoryBytes),
      line: tr.querySelector('polyline')?.getAttribute('points') ?? '',
    }))),
    /** The table's state line (`data-state`: forbidden, not-served…). */
    state: (which) => page.getByTestId(`top-${which}-state`),
    byMemory: () => page.getByTestId('top-by-memory').click(),
    byCpu: () => page.getByTestId('top-by-cpu').click(),
    /** Types into the filter (`''` clears). */
    filter: (text) => page.getByTestId('top-filter').fill(text),
    /** Right-sizing's row of a workload (`Kind/namespace/name`). */
    sizing: (key) => page.getByTestId('sizing').locator(`[data-key="${key}"]`),
  };
}

/**
 * CPU and memory outside Top: an object page's charts (`what`: 'cpu' or
 * 'memory') and a resource table's usage columns.
 */
export function usage(page) {
  return {
    /** The chart of `what` (its line, its marks, its caption). */
    chart: (what) => page.getByTestId(`usage-${what}`),
    /** The chart's words ("900m · 180% of request 500m · …"). */
    words: (what) => page.getByTestId(`usage-${what}-words`),
    /** The table's button that hides or shows the usage columns. */
    toggle: () => page.getByTestId('usage-toggle'),
    /** The table's usage state line. */
    state: () => page.getByTestId('usage-state'),
  };
}

/** The Forwards page (`#/forwards`): its form, the outcome and the forwards' rows. */
export function forwards(page) {
  return {
    /** Waits for the line that says there is no forward. */
    none: () => page.getByTestId('forwards-none').waitFor(),
    /** Fills the form with a Service's namespace, name and port, and starts. */
    async start(namespace, name, port) {
      await page.getByTestId('forward-namespace').fill(namespace);
      await page.getByTestId('forward-name').fill(name);
      await page.getByTestId('forward-port').fill(port);
      await page.getByTestId('forward-start').click();
    },
    /** The line that says what the last start did (here or on an object page). */
    outcome: () => page.getByTestId('forward-outcome'),
    /** The forwards' rows. */
    row: () => page.getByTestId('forward-row'),
    /** A row's local address, a link. */
    local: (row) => row.getByTestId('forward-local'),
    stop: (row) => row.getByTestId('forward-stop').click(),
  };
}

/** An object page's forward panel: a button for each port, or a hidden mark that none is allowed. */
export function forwardPanel(page) {
  return {
    /** The button of the container port `port`. */
    port: (port) => page.locator(`[data-testid="forward-port"][data-port="${port}"]`),
    /** The panel. */
    ports: () => page.getByTestId('forward-ports'),
    /** The hidden mark of a run or user that may not forward. */
    denied: () => page.getByTestId('forward-denied'),
  };
}

/** The API page (`#/api`): the discovery tree's resources and its search. */
export function apiTree(page) {
  const resources = () => page.getByTestId('api-resource');
  return {
    resources,
    /** Waits for the first resource. */
    loaded: (timeout = 20000) => resources().first().waitFor({ timeout }),
    /** The resource `plural.group` (`data-name`). */
    resource: (name) => page.locator(`[data-testid="api-resource"][data-name="${name}"]`),
    /** The resource's CRD badge. */
    crdBadge: (name) => page.locator(`[data-testid="api-resource"][data-name="${name}"] [data-testid="crd-badge"]`),
    search: (text) => page.getByTestId('api-search').fill(text),
  };
}

/**
 * Create (`#/create`) beyond its editor (`editor(page, 'create')`): each
 * document's review and state, the fields, the outcomes.
 */
export function createPage(page) {
  const docs = () => page.getByTestId('create-doc');
  const outcomes = () => page.getByTestId('create-outcome');
  return {
    /** Opens it in a fresh load of the app and waits for its text. */
    async open(base) {
      await page.goto('about:blank');
      await page.goto(at(base, '#/create'));
      await page.getByTestId('create-text').waitFor({ timeout: 20000 });
    },
    /** Each document's state (`asking`, `ok`, `refused`…). */
    states: () => docs().evaluateAll((ds) => ds.map((d) => d.dataset.state)),
    /** Each document as 'its heading: its state'. */
    documents: () => docs().evaluateAll((ds) => ds.map((d) => `${d.querySelector('h4').textContent}: ${d.dataset.state}`)),
    /** The review's fields' rows as text, those set by `by` ('you', 'server') if given. */
    fields: (by) => (by ? page.locator(`[data-testid=create-fields-row][data-by=${by}]`) : page.getByTestId('create-fields-row')).allInnerTexts(),
    /** Why documents were refused, each as text. */
    causes: () => page.getByTestId('create-cause').allInnerTexts(),
    /** Where the text does not read. */
    unreadable: () => page.getByTestId('create-unreadable').innerText(),
    /** Whether Create is disabled. */
    applyDisabled: () => page.getByTestId('create-apply').isDisabled(),
    /** Ticks 'go on' past refused documents. */
    goOn: () => page.getByTestId('create-go-on').check(),
    /** The outcomes, one per document sent. */
    outcomes,
    /** Each outcome's state (`created`, …). */
    outcomeStates: () => outcomes().evaluateAll((o) => o.map((x) => x.dataset.state)),
    /** The outcomes in the state `state`. */
    outcome: (state) => page.locator(`[data-testid=create-outcome][data-state=${state}]`),
    /** The frame's hidden mark that the rules review says no Create. */
    denied: () => page.getByTestId('create-denied'),
  };
}

/**
 * The rows of the page's first rowgroup as Chromium's accessibility tree
 * gives them to a screen reader, in that order, each named by its element's
 * `attr` (e.g. `data-key`): the order a ring of rows must give through
 * `aria-owns`, whatever slot of the DOM holds each row.
 */
export async function accessibleRows(page, attr) {
  const cdp = await page.context().newCDPSession(page);
  try {
    await cdp.send('Accessibility.enable');
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    const byId = new Map(nodes.map((n) => [n.nodeId, n]));
    const group = nodes.find((n) => n.role?.value === 'rowgroup');
    if (!group) throw new Error('no rowgroup in the accessibility tree');
    const rows = [];
    const walk = (n) => {
      if (n.role?.value === 'row') { rows.push(n.backendDOMNodeId); return; }
      for (const c of n.childIds ?? []) { if (byId.has(c)) walk(byId.get(c)); }
    };
    walk(group);
    const read = [];
    for (const backendNodeId of rows) {
      const { node } = await cdp.send('DOM.describeNode', { backendNodeId });
      const attrs = node.attributes ?? [];
      const at = attrs.indexOf(attr);
      read.push(at < 0 ? null : attrs[at + 1]);
    }
    return read;
  } finally {
    await cdp.detach();
  }
}
