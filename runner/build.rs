//! Rebuilds the runner when the corpus changes: `include_dir!` embeds
//! `corpus/cases` but, on stable Rust, does not tell cargo about the files.

fn main() {
    println!("cargo:rerun-if-changed=../corpus/cases");
    println!("cargo:rerun-if-changed=build.rs");
}
