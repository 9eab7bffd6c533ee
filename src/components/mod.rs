//! Small components shared by pages; each reads models and the cluster's signals, and leaves the rules to `rules/`.
//!
//! # The components
//!
//! Small components that read models and signals and hold
//! no rule: the connection and no-token banners, the header's context and its menu of the launcher's other contexts (`contexts`), the browser's confirm and
//! prompt, keyboard shortcuts (one window listener per component and the
//! shared "is the person typing" check), the namespace picker (a text field
//! with the namespaces as choices, for a person who may not list them), the
//! action outcome, the one filter menu of the event stream and the changes
//! page (`filter_menu` `FilterMenu`), a `ProblemBox` (every failure a page shows, with its
//! kind in `data-problem` and the server's words: a refused route, an
//! informer's failure, a Secret that cannot be revealed), `Resolved`
//! (resolve a resource name, then draw what needs it), the command
//! palette, the virtualized-list window, the theme switch, and the YAML
//! editor of Edit and Create (`editor` `CodeEditor`): a transparent text
//! area over a painted copy of its text, the two in one grid cell so they
//! share a size and scroll together. The paint is `rules/editor`'s: each
//! line's runs coloured (keys, strings, numbers, literals, comments,
//! anchors and tags, block scalars to their end), search matches
//! (ASCII-case-insensitive) cut into them, the lines an error names
//! flagged, and each line keyed by what it shows, so a keystroke redraws
//! the lines it changed. Search is Ctrl+F or Find; Escape selects the
//! current match in the text (UTF-16 offsets, as the text area counts).

pub mod banner;
pub mod contexts;
pub mod dialog;
pub mod diff;
pub mod editor;
pub mod filter_menu;
pub mod keys;
pub mod namespace;
pub mod outcome;
pub mod palette;
pub mod problem;
pub mod resolved;
pub mod scroll;
pub mod theme;
