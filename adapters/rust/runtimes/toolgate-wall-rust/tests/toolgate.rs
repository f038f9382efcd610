//! The gate under `cargo test` (`harness = false`): the boundary corpus
//! and 100 generated cases on the wall, which must pass every one.

fn main() -> std::process::ExitCode {
    toolgate_harness::Gate::new(toolgate_wall_rust::Wall::default())
        .generate(100)
        .seed(1)
        .strict(true)
        .main()
}
