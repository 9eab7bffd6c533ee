//! Rebuilds the launcher when `make app` adds or removes a file in dist/:
//! rust-embed's own tracking sees the files it embedded, not new ones (the
//! compressed copies, a renamed hashed file).
fn main() {
    println!("cargo:rerun-if-changed=../../dist");
}
