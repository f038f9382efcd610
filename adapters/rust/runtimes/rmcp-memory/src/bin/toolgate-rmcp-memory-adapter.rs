//! The toolgate adapter of rmcp in memory (runner/PROTOCOL.md):
//! `toolgate run --suite boundary --impl toolgate-rmcp-memory-adapter`.

fn main() -> std::process::ExitCode {
    toolgate_harness::adapter_main(toolgate_runtime_rmcp_memory::RmcpMemory)
}
