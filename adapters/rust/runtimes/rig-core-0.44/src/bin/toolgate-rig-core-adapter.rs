//! The toolgate adapter of rig (runner/PROTOCOL.md):
//! `toolgate run --suite boundary --impl toolgate-rig-core-adapter`.

fn main() -> std::process::ExitCode {
    toolgate_harness::adapter_main(toolgate_runtime_rig_core::RigCore)
}
