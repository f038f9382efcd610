//! Rebuilds the crate when a case file changes: `include_dir!` embeds
//! `cases/` and `regressions/` but, on stable Rust, does not tell cargo about the files.

fn main() {
    println!("cargo:rerun-if-changed=cases");
    println!("cargo:rerun-if-changed=regressions");
    println!("cargo:rerun-if-changed=build.rs");
}
