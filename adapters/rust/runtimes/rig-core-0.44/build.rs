//! The version of rig-core this shim is built against, read from the
//! `Cargo.lock` beside it (this crate is its own workspace), for the
//! report's header: a build against another version than the pinned one
//! reports that version. rig-core exports no version of its own.

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    let lock = std::fs::read_to_string("Cargo.lock").unwrap_or_default();
    let version = lock
        .split("[[package]]")
        .find_map(|package| {
            let field = |key: &str| {
                package.lines().find_map(|line| {
                    line.strip_prefix(key)
                        .and_then(|rest| rest.strip_prefix(" = "))
                        .map(|value| value.trim_matches('"'))
                })
            };
            (field("name") == Some("rig-core")).then(|| field("version"))?
        })
        .unwrap_or("unknown (no Cargo.lock beside the shim)");
    println!("cargo:rustc-env=TOOLGATE_RIG_CORE_VERSION={version}");
}
