//! The toolgate adapter of toolgate-wall-rust (runner/PROTOCOL.md):
//! `toolgate run --impl toolgate-wall-rust-adapter`.

fn main() -> std::process::ExitCode {
    toolgate_harness::adapter_main(toolgate_wall_rust::Wall::default())
}
