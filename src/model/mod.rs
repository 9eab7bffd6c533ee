//! The app's rules in plain Rust, with no Leptos and no browser: each is tested natively (`cargo test -p kubeglass`).

pub mod cells;
pub mod connection;
pub mod discovery;
pub mod edit;
pub mod events;
pub mod filter;
pub mod history;
pub mod labels;
pub mod live_rows;
pub mod log_merge;
pub mod log_page;
pub mod logs;
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
pub mod time;
pub mod timeline;
pub mod yaml;
