//! The app's rules in plain Rust, with no Leptos and no browser: each is tested natively (`cargo test -p kubeglass`).
//!
//! The room is named for what it holds: rules (pure functions and the plain
//! types they keep), no view state; a view's signals live in its page's
//! `state`, the cluster's in `kube`.
//!
//! # The rules, room by room
//!
//! The rules, with no Leptos and no browser, tested natively
//! (`cargo test -p kubeglass`). `time`: one unit, seconds since the epoch
//! (`Seconds`), RFC 3339 parsing (fractions, offsets) and kubectl's short
//! ages (`3d`, never `72h`) for every page. `table`: rows by key in sort
//! order, a change moves one row (two binary searches, no re-sort).
//! `live_rows`: a table's row life-cycle — a preview page, replaced
//! wholesale by the informer's first delivery; changed rows flash, deleted
//! rows fade for 1.5 s, then go. `cells`: cell text and status colour, and
//! the rows a filter keeps. `filter`: the one filter grammar every box reads
//! — tables, the event stream's text, the logs and the API page's search:
//! empty is everything, `/pattern/` a case-insensitive regular expression,
//! anything else text in any case; a pattern that does not compile is one
//! error, shown under the box (the regex engine is injected: the browser's
//! `RegExp` in the app, `platform::regex`, and a stub in tests). `events/` (one idea a file): one decoder for core/v1 Events,
//! events.k8s.io ones included as core/v1 serves them (`series.count`,
//! `series.lastObservedTime`, `eventTime`, `count: 0`; an unreadable time is unknown, never 1970), the filter, the
//! newest-first `EventIndex` with per-value counts for the menus (one frame
//! of an informer's changes applied at once, counting those that pass the
//! filter for the paused stream's "N events arrived"), the per-minute counts
//! and their sparkline, and where an object's Events live (`default` for a
//! cluster-scoped one). `objects/` (one idea a file): the overview's rows, owners, what a kind
//! owns (`children_of`), conditions, pod counts, which actions a kind has,
//! the resource an `apiVersion` and `kind` name (`resource_of`: owner
//! links and an Event's involved object alike), a typed replica count.
//! `labels`: label edits checked by apimachinery's rules (qualified-name
//! keys, 63-character values), and annotation edits (one a line, free
//! values). `marks`: a table's marked rows by key (click, Shift-click's
//! range, Space, all that match the filter), surviving sorting and live
//! changes, dropping deleted rows. `bulk`: the verbs a kind offers for
//! marked rows, the review each needs, the one confirmation's question, and
//! each object's fate (allowed, refused and why, done, failed and why). `yaml`: JSON as kubectl prints YAML,
//! managedFields folded. `problem`: failures sorted into forbidden, not
//! found, unreachable, invalid and other, each with its own words
//! (`explain("list nodes cluster-wide")`). `unread`: what an informer
//! cannot read now, each object stale (its last good copy shown) or left
//! out (never read), stale first, with a count past a limit; the problem
//! line and the X-ray page name them with it, and a stale row or object
//! says why it is shown as last read (`stale_words`). `connection`: the link to the API
//! from every informer's status and the version probe — unreachable,
//! connected, or *denied* (the API answers 403 to everything asked).
//! `namespaces`: which namespace the app opens in (remembered, else the
//! launcher's context namespace, else all) and the menu's choices.
//! `pods`: a pod as its page shows it (node, IPs, QoS class; each init, app
//! and ephemeral container's state with reason, exit code and since when,
//! readiness, restarts, last termination, ports, requests and limits) and
//! the container a log opens by default (kubectl's annotation, else the
//! first app container). `logs/` (one idea a file: `options`, `lines`,
//! `ring`, `ansi`, `words`): the log view's options and their URL
//! query (`c`, `previous`, `since`, `sinceTime`, `tail`, `ts`, `wrap`,
//! `follow`, `q`, `keep`; the stream always asks for timestamps, so lines can be
//! ordered and the toggle only hides them), lines cut from a byte stream
//! across chunk boundaries (one line kept to `MAX_LINE_BYTES`, 64 KiB, the
//! rest counted and the whole length shown in a `cut_mark`), the bounded `LogRing` (default 250,000 lines,
//! 10,000 to 1,000,000 as asked; the oldest dropped and counted, lines from several pods placed in
//! timestamp order within the newest 4,096), ANSI SGR colours as classes
//! (16 colours; 256 and RGB quantized to them; OSC and other controls
//! dropped; other controls drawn as `cat -v` does and bidi characters as
//! `<U+202E>`, by `push_visible`), the match pieces to mark
//! (the filter is `filter`'s one grammar), short pod names and the text of
//! a copy (as drawn) and a download (exact: `LogText`), and the words for a stream that cannot be read (the kubelet's
//! "waiting to start" is not an invalid request). `log_page`: a stream's
//! life (`StreamState`) and the one message a pod's log page shows, most
//! important first (the pod may not be read, is not there, went, its stream
//! failed, its container has not started), and the note for a log that is
//! opening or ended. `log_merge`: a workload's merged logs — which pods to follow under
//! a cap, a source number and short name each, the ones that joined (all of
//! their log, with a marker line) and left (a marker line). `palette`: the
//! command palette's line (`:deploy kube-system`), its built-in words and
//! the suggestions' ranking. `resolve`: whether a resource name a page was
//! given is known and has the verbs the page needs. `discovery`: the API
//! page's search, and when discovery is out of date (a CRD came, went or
//! changed). `rates`: counters read each tick as rates per second (the X-ray
//! page's events per second per informer). `versions`: an object's versions
//! as the tab saw them (`Versions`: per object at most `PER_OBJECT`, all
//! together at most `TOTAL_BYTES` of JSON, the oldest of other objects
//! dropped first, each drop counted; `mod`), the field-by-field `diff` of two
//! versions (resourceVersion and managedFields left out; `diff`), the managers whose
//! managedFields entries moved between them (`writers`; `managers`), and the one-line
//! `summary` (`summary`) (`spec.replicas 1 → 3, by kubectl (scale)`); the type
//! (`apiVersion`, `kind`) is noise too, since a listed object lacks it and a
//! watched one carries it. `changes`: the changes page's rows
//! (`Changes::observe` turns the version seen before and the one now into
//! an added, updated or deleted row with its writers and summary, an update
//! that touched only `status` marked `status_only`; `Changes::warning` makes
//! a Warning event a row), at most `MAX_ENTRIES` rows and `MAX_BYTES` of
//! diffs, the oldest dropped and counted, rows shared as `Arc` so a frame
//! copies pointers; `ChangeFilter` is its namespace, kind, manager, text
//! and status-only toggle. `create`: the documents of a create (`documents`:
//! `---` between them, a List as its items, each with its first line so a
//! field the server names is found at its line; a text that does not read
//! fails whole with its line and column, a document without apiVersion, kind
//! or name fails alone) and a dry run's answer as every field it would store
//! (`review_create`, the server's own marked, a Secret's values `HIDDEN`).
//! `edit`: the text a
//! person edits (`editable`: status and managedFields away, the
//! resourceVersion kept), read back with yaml-rust2 (`parse`: one document,
//! errors with line and column), the `review` of a dry run (every field
//! that would change, `by_server` where the answer differs from what was
//! sent), `rebase` of an edit onto a newer object (the person's changes set
//! on it, the fields both changed named), `field_line` (where a field
//! the server named is in the text), and `edit_patch` (what Apply sends:
//! the merge patch of the person's changes with the version the edit began
//! from). `drift`: the fields `kubectl apply`'s last-applied manifest sets
//! whose live value differs, as the server stores them: fields it leaves to
//! others are not drift, a `null` in it is "absent", quantities in resource
//! maps compare by value (`0.5` = `500m`), and the lists apply merges by key
//! (containers, env, volumes, ports …) compare item by key. `rollout`: a Deployment's `revisions`
//! from the ReplicaSets it owns (the revision annotation, images,
//! change-cause, the pod template without the controller's hash label),
//! newest first, and the one it runs now (`current`); a StatefulSet's or
//! DaemonSet's from the ControllerRevisions it owns (`controller_revisions`:
//! each one's `revision`, the template in its `data` without the
//! `$patch: replace` mark). `helm`: Helm 3's releases, a revision from its
//! Secret's labels alone (`Revision::from_labels`), grouped newest first
//! (`releases`); one revision's payload `decode`d when a person reveals it
//! (base64, gzip bounded to `MAX_UNPACKED`, 16 MiB, JSON) and made `comparable`
//! with another (chart, values, each manifest object by kind and name).

pub mod bulk;
pub mod cells;
pub mod changes;
pub mod connection;
pub mod create;
pub mod custom_columns;
pub mod discovery;
pub mod drain;
pub mod drift;
pub mod edit;
pub mod editor;
pub mod events;
pub mod filter;
pub mod helm;
pub mod labels;
pub mod live_rows;
pub mod log_merge;
pub mod log_page;
pub mod logs;
pub mod marks;
pub mod namespaces;
pub mod objects;
pub mod palette;
pub mod pods;
pub mod problem;
pub mod rates;
pub mod resolve;
pub mod rollout;
pub mod secrets;
pub mod session;
pub mod table;
pub mod terminal;
pub mod time;
pub mod unread;
pub mod usage;
pub mod versions;
pub mod yaml;
