//! Rebuild when dist/ changes: the app is embedded from it, and Trunk's file
//! names carry content hashes, so a new build is new files, not changed ones.
fn main() {
    println!("cargo:rerun-if-changed=../../dist");
}
