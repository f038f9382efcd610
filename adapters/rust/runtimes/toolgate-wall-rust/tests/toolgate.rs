//! The gate under `cargo test` (`harness = false`): the boundary corpus
//! and 500 generated cases on the wall, which must pass every one, also
//! the SHOULDs (`strict`).

fn main() -> std::process::ExitCode {
    toolgate_harness::Gate::new(toolgate_wall_rust::Wall::default())
        .generate(500)
        .seed(1)
        .jobs(4)
        .strict(true)
        .main()
}
