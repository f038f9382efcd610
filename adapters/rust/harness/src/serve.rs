//! The toolgate adapter (runner/PROTOCOL.md) for the `boundary` suite on a
//! Rust runtime, through its shim: what `toolgate run --impl` and the
//! compliance matrix start, and what the `cargo test` gate starts as its
//! child. Replies go to the process's original stdout; anything the
//! runtime or the shim prints goes to stderr, where the runner keeps it
//! with the case.

use crate::isolate::run_isolated;
use crate::observe::Answer;
use crate::panics;
use crate::shim::Shim;
use std::io::{BufReader, BufWriter};
use std::os::fd::{AsRawFd, FromRawFd};
use std::process::ExitCode;
use std::time::Duration;
use toolgate_protocol::{self as protocol, Hello, Implementation, ReplyBody, PROTOCOL_VERSION};

/// The stack of the thread the turns run on. Fixed, so that whether a
/// runtime's recursion over a 10^5-deep value overflows does not depend on
/// the machine's `ulimit -s`: 8 MiB, Linux's usual main-thread stack.
pub const TURN_STACK_BYTES: usize = 8 << 20;

/// How long a turn may take before it is called pending, unless told.
pub const DEFAULT_SETTLE: Duration = Duration::from_millis(2_000);

/// The handshake's answer for `shim`'s runtime.
pub fn hello<S: Shim>(shim: &S) -> Hello {
    let runtime = shim.runtime();
    Hello {
        protocol: PROTOCOL_VERSION,
        implementation: Implementation {
            name: format!("{} ({})", runtime.package, runtime.id),
            version: runtime.version.into(),
            language: "rust".into(),
            homepage: runtime.homepage.map(str::to_string),
        },
        suites: vec!["boundary".into()],
        capabilities: Vec::new(),
    }
}

/// An adapter binary's `main`: [`serve`] with the window of its
/// arguments (`[--settle-ms N]`, default [`DEFAULT_SETTLE`]).
pub fn adapter_main<S: Shim + Send + 'static>(shim: S) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match settle_arg(&args) {
        Ok(settle) => serve(shim, settle.unwrap_or(DEFAULT_SETTLE)),
        Err(message) => {
            eprintln!("toolgate rust harness: {message}");
            ExitCode::from(2)
        }
    }
}

/// The settle window of an adapter's arguments, if they give one.
pub(crate) fn settle_arg(args: &[String]) -> Result<Option<Duration>, String> {
    match args {
        [] => Ok(None),
        [flag, ms] if flag == "--settle-ms" => match ms.parse::<u64>() {
            Ok(ms) if ms > 0 => Ok(Some(Duration::from_millis(ms))),
            _ => Err(format!(
                "--settle-ms needs a positive whole number, not {ms:?}"
            )),
        },
        other => Err(format!("unknown adapter arguments {other:?}")),
    }
}

/// Serves the protocol on stdin and stdout until `stop`: one case at a
/// time, each in a child process of its own (`isolate.rs`), observed on a
/// current-thread tokio runtime (I/O and time enabled) on a thread of
/// [`TURN_STACK_BYTES`].
pub fn serve<S: Shim + Send + 'static>(shim: S, settle: Duration) -> ExitCode {
    panics::install();
    let replies = match claim_stdout() {
        Ok(file) => file,
        Err(e) => {
            eprintln!("toolgate rust harness: cannot keep stdout for replies: {e}");
            return ExitCode::from(2);
        }
    };
    let worker = std::thread::Builder::new()
        .name("toolgate-turns".into())
        .stack_size(TURN_STACK_BYTES)
        .spawn(move || serve_on_this_thread(&shim, settle, replies));
    match worker.map(|w| w.join()) {
        Ok(Ok(Ok(()))) => ExitCode::SUCCESS,
        Ok(Ok(Err(e))) => {
            eprintln!("toolgate rust harness: the protocol stream failed: {e}");
            ExitCode::from(1)
        }
        Ok(Err(_)) => {
            eprintln!("toolgate rust harness: the serving thread panicked");
            ExitCode::from(101)
        }
        Err(e) => {
            eprintln!("toolgate rust harness: cannot start the serving thread: {e}");
            ExitCode::from(2)
        }
    }
}

fn serve_on_this_thread<S: Shim>(
    shim: &S,
    settle: Duration,
    replies: std::fs::File,
) -> std::io::Result<()> {
    let replies_fd = replies.as_raw_fd();
    let hello = hello(shim);
    protocol::serve(
        BufReader::new(std::io::stdin().lock()),
        BufWriter::new(replies),
        &hello,
        |case| {
            if case.suite != "boundary" {
                return ReplyBody::Error {
                    message: format!("this adapter runs the boundary suite, not {:?}", case.suite),
                };
            }
            if let Some(reason) = case
                .needs
                .iter()
                .find_map(|need| shim.not_applicable(need).map(|r| format!("{need}: {r}")))
            {
                return ReplyBody::NotApplicable { reason };
            }
            let window = settle * case.patience.unwrap_or(1).max(1);
            match run_isolated(shim, &case.scenario, window, replies_fd) {
                Answer::Observation(observation) => ReplyBody::Observation(observation),
                Answer::Skipped(reason) => ReplyBody::Skipped { reason },
                Answer::Error(message) => ReplyBody::Error { message },
            }
        },
    )
}

/// The original stdout, for replies only; fd 1 then points at stderr, so
/// a runtime's `println!` never corrupts the protocol.
fn claim_stdout() -> std::io::Result<std::fs::File> {
    // SAFETY: dup and dup2 on the process's own standard descriptors; the
    // new descriptor is owned by the returned File alone
    unsafe {
        let kept = libc::dup(1);
        if kept < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::dup2(2, 1) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(std::fs::File::from_raw_fd(kept))
    }
}
