//! The `bash` tool of seed 004 (seed:L159-185, W25-W33): `$SHELL -c
//! <command>` (`/bin/sh` without `SHELL`) in the real root, as Node's
//! `execFile` runs it with `timeout: 10000` and `maxBuffer: 65536`.
//!
//! Where the reference is stricter than the seed, and why: the shell runs
//! in a process group of its own and a timeout, an overflow or an abort
//! signals the whole group (the seed's `execFile` kills only the shell, so
//! a grandchild survives, reparented, W31; nothing the observation holds
//! differs, and a reference that leaves processes behind would make the
//! suite's own runs leak them); an aborted call never starts the shell
//! (the seed starts it and kills it on the next tick, so part of a command
//! may run: cases abort commands that have no effect); a group that
//! ignores `SIGTERM` is killed after a grace period (the seed would wait
//! for it forever).

use super::boundary::{errno_of, workspace_path, RealFs};
use super::node_text::NodeError;
use super::spec::{Abort, CallResult};
use super::tools::{decode_stream, string_field, INVALID_BASH};
use serde_json::Value as Json;
use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use toolgate_suite::fs_tree::Errno;

/// The shell without `SHELL` (seed:L181).
pub const DEFAULT_SHELL: &str = "/bin/sh";
/// `execFile`'s `timeout` (seed:L159).
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// `execFile`'s `maxBuffer`, per stream, in bytes (seed:L159).
pub const MAX_BUFFER: usize = 64 * 1024;
/// The clip of the joined output, in UTF-16 code units (seed:L169).
pub const MAX_OUTPUT_CHARS: usize = 64 * 1024;
/// `AbortError`'s message.
pub const ABORTED: &str = "The operation was aborted";
/// Set while calls run (`adapters/node/workspace/observe.mjs` sets the
/// same).
pub const CALL_ENVIRONMENT: &[(&str, &str)] = &[("SHLVL", "1"), ("LC_ALL", "C")];
/// Unset while calls run: startup files and shell options a user's
/// environment could bring in.
pub const CALL_ENVIRONMENT_REMOVED: &[&str] = &[
    "BASH_ENV",
    "ENV",
    "CDPATH",
    "SHELLOPTS",
    "BASHOPTS",
    "POSIXLY_CORRECT",
    "GLOBIGNORE",
    "LANGUAGE",
];
/// How long a signalled group has to exit before it is killed outright.
const GRACE: Duration = Duration::from_secs(2);

/// The `bash` tool; `shell` is `$SHELL` (`None`: unset).
pub fn bash(
    root: &str,
    input: Option<&Json>,
    shell: Option<&str>,
    abort: Option<Abort>,
) -> CallResult {
    let Some(command) = string_field(input, "command") else {
        return CallResult::error(INVALID_BASH);
    };
    let cwd = match workspace_path(&RealFs, root, ".", false) {
        Ok(cwd) => cwd,
        Err(e) => return CallResult::error(e.message()),
    };
    let file = shell.unwrap_or(DEFAULT_SHELL);
    // spawn validates its arguments before anything runs
    if command.contains('\0') {
        return CallResult::error(NodeError::nul_in_argument("args[1]", command).message());
    }
    if abort.is_some() {
        // spawn's own failure reaches the callback before the abort
        if let Some(errno) = spawn_would_fail(file, &cwd) {
            return CallResult::error(spawn_failure(file, errno));
        }
        return CallResult::error(ABORTED);
    }
    run(file, command, &cwd, shell)
}

/// `ChildProcess#spawn`'s error: the five errors libuv reports after the
/// fork name the file (`spawn /no/such/shell ENOENT`, and a missing cwd is
/// reported the same way); any other is thrown at once without it
/// (`spawn ENOTDIR` for a cwd that is a file).
fn spawn_failure(file: &str, errno: Errno) -> String {
    match errno.name {
        "EACCES" | "EAGAIN" | "EMFILE" | "ENFILE" | "ENOENT" => {
            format!("spawn {file} {}", errno.name)
        }
        name => format!("spawn {name}"),
    }
}

/// How spawning `file` in `cwd` would fail, without running it: the child
/// changes to the cwd first, then executes the file.
fn spawn_would_fail(file: &str, cwd: &str) -> Option<Errno> {
    match std::fs::metadata(cwd) {
        Err(e) => return Some(errno_of(&e)),
        Ok(m) if !m.is_dir() => return Some(Errno::ENOTDIR),
        Ok(_) => {}
    }
    match std::fs::metadata(file) {
        Err(e) => Some(errno_of(&e)),
        Ok(m) if m.is_dir() => Some(Errno::EACCES),
        #[cfg(unix)]
        Ok(m) if std::os::unix::fs::PermissionsExt::mode(&m.permissions()) & 0o111 == 0 => {
            Some(Errno::EACCES)
        }
        Ok(_) => None,
    }
}

enum Event {
    Out(Vec<u8>),
    Err(Vec<u8>),
    OutEnd,
    ErrEnd,
    Exit(Option<ExitStatus>),
}

fn run(file: &str, command: &str, cwd: &str, shell: Option<&str>) -> CallResult {
    let mut cmd = Command::new(file);
    cmd.arg("-c")
        .arg(command)
        .current_dir(cwd)
        // execFile leaves the child's stdin an open pipe nobody writes
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match shell {
        Some(value) => cmd.env("SHELL", value),
        None => cmd.env_remove("SHELL"),
    };
    // the environment the harnesses give calls (FORMAT.md, "Determinism"):
    // no shell startup files (bash, whose stdin is a socket under Node,
    // reads ~/.bashrc below SHLVL 2), the C locale
    for (name, value) in CALL_ENVIRONMENT {
        cmd.env(name, value);
    }
    for name in CALL_ENVIRONMENT_REMOVED {
        cmd.env_remove(name);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let started = Instant::now();
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => return CallResult::error(spawn_failure(file, errno_of(&e))),
    };
    let stdin = child.stdin.take();
    let (tx, rx) = mpsc::channel();
    if let Some(out) = child.stdout.take() {
        pump(out, tx.clone(), Event::Out, Event::OutEnd);
    }
    if let Some(err) = child.stderr.take() {
        pump(err, tx.clone(), Event::Err, Event::ErrEnd);
    }
    let pid = child.id();
    std::thread::spawn(move || {
        let status = child.wait().ok();
        let _ = tx.send(Event::Exit(status));
    });

    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    let (mut out_open, mut err_open) = (true, true);
    let mut exit: Option<Option<ExitStatus>> = None;
    let mut overflow: Option<&str> = None;
    let deadline = started + TIMEOUT;
    while out_open || err_open || exit.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        let event = match rx.recv_timeout(left) {
            Ok(event) => event,
            Err(_) => break,
        };
        match event {
            Event::Out(bytes) => {
                if take(&mut stdout, &bytes) {
                    overflow = Some("stdout");
                    break;
                }
            }
            Event::Err(bytes) => {
                if take(&mut stderr, &bytes) {
                    overflow = Some("stderr");
                    break;
                }
            }
            Event::OutEnd => out_open = false,
            Event::ErrEnd => err_open = false,
            Event::Exit(status) => exit = Some(status),
        }
    }
    drop(stdin);
    let finished = !out_open && !err_open && exit.is_some();
    if !finished {
        // the timeout or the overflow: execFile destroys the streams and
        // signals the child; what it then reports depends on how the shell
        // ended
        exit = Some(exit.unwrap_or_else(|| stop_group(pid, &rx)));
    }
    stop_leftovers(pid);
    if let Some(stream) = overflow {
        return CallResult::error(format!("{stream} maxBuffer length exceeded"));
    }
    let status = exit.flatten();
    let stderr_text = decode_stream(&stderr, !err_open);
    if status.is_some_and(|s| s.success()) {
        let mut units: Vec<u16> = decode_stream(&stdout, !out_open).encode_utf16().collect();
        units.extend(stderr_text.encode_utf16());
        units.truncate(MAX_OUTPUT_CHARS);
        return CallResult::ok(toolgate_suite::js_string::JsString::from_units(units));
    }
    CallResult::error(format!(
        "Command failed: {file} -c {command}\n{stderr_text}"
    ))
}

/// Appends a chunk; true when the stream went past `maxBuffer`.
fn take(buffer: &mut Vec<u8>, bytes: &[u8]) -> bool {
    if buffer.len() + bytes.len() > MAX_BUFFER {
        return true;
    }
    buffer.extend_from_slice(bytes);
    false
}

fn pump<R: Read + Send + 'static>(
    mut reader: R,
    tx: mpsc::Sender<Event>,
    chunk: fn(Vec<u8>) -> Event,
    end: Event,
) {
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match reader.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx
                        .send(chunk(buf.get(..n).unwrap_or_default().to_vec()))
                        .is_err()
                    {
                        return;
                    }
                }
            }
        }
        let _ = tx.send(end);
    });
}

/// SIGTERM to the shell's group; the shell's exit status once it exits
/// (SIGKILL to the group after the grace period).
fn stop_group(pid: u32, rx: &mpsc::Receiver<Event>) -> Option<ExitStatus> {
    signal_group(pid, Signal::Term);
    let deadline = Instant::now() + GRACE;
    let mut killed = false;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(if killed { GRACE } else { left }) {
            Ok(Event::Exit(status)) => return status,
            Ok(_) => {}
            Err(mpsc::RecvTimeoutError::Timeout) if !killed => {
                signal_group(pid, Signal::Kill);
                killed = true;
            }
            Err(_) => return None,
        }
    }
}

/// What is left of the group after the shell ended (a background job,
/// holding the output open or not) is stopped too.
fn stop_leftovers(pid: u32) {
    signal_group(pid, Signal::Term);
}

enum Signal {
    Term,
    Kill,
}

#[cfg(unix)]
fn signal_group(pid: u32, signal: Signal) {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return;
    };
    let signal = match signal {
        Signal::Term => libc::SIGTERM,
        Signal::Kill => libc::SIGKILL,
    };
    // SAFETY: kill(2) with a negative pid signals the process group the
    // shell leads (process_group(0) made it); it touches no memory
    unsafe {
        libc::kill(-pid, signal);
    }
}

#[cfg(not(unix))]
fn signal_group(_pid: u32, _signal: Signal) {}
