//! The toolgate adapter of rmcp over stdio (runner/PROTOCOL.md):
//! `toolgate run --suite boundary --impl toolgate-rmcp-stdio-adapter`. It
//! spawns `toolgate-rmcp-stdio-server`, found beside it, once per turn.

fn main() -> std::process::ExitCode {
    toolgate_harness::adapter_main(toolgate_runtime_rmcp_stdio::RmcpStdio)
}
