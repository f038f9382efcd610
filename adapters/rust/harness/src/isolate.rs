//! Each case in a child process of its own (`fork`), so that what a
//! runtime does to its process is the case's verdict, not the end of the
//! run. A Rust runtime meets a 10^5-deep or cyclic output with recursion
//! that overflows the stack, which aborts the process and which no
//! `catch_unwind` survives; a tool that never lets go leaves a task
//! behind. The child runs the case on a fresh current-thread tokio runtime
//! and mirrors every tool event and the abort to the parent as they
//! happen; the parent answers with the child's observation, or, when the
//! child died first, with the observation of a turn that crashed (a
//! rejection named `crash`, with the runtime's last words from its stderr
//! and the tool events it had mirrored), or, when it hung past the window,
//! of a pending turn. Every case starts from the shim as it was before the
//! first (the parent never runs a turn), and whatever a case spawned is
//! killed with its process group when it is answered.

use crate::bodies::{EventKind, Release, ToolEvent};
use crate::observe::{self, observe_case, ran_of, Answer, Happened, Mirror};
use crate::shim::Shim;
use serde_json::{json, Value};
use std::io::{Read, Seek, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long past its window a child may go silent before it is killed
/// (a turn that blocks its thread never lets the window's timer fire).
pub const GRACE: Duration = Duration::from_secs(3);

/// Most bytes of a child's stderr forwarded per case.
const STDERR_KEPT: usize = 64 << 10;

/// Runs one case in a child process and answers for it. `replies` is the
/// protocol's descriptor, closed in the child.
pub fn run_isolated<S: Shim>(
    shim: &S,
    scenario: &Value,
    window: Duration,
    replies: RawFd,
) -> Answer {
    match Child::start(shim, scenario, window, replies) {
        Ok(child) => child.answer(scenario, window),
        Err(e) => Answer::Error(format!("could not start the case's process: {e}")),
    }
}

struct Child {
    pid: libc::pid_t,
    lines: OwnedFd,
    stderr: std::fs::File,
    origin: Instant,
}

fn os_result(result: libc::c_int) -> std::io::Result<libc::c_int> {
    if result < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(result)
    }
}

impl Child {
    fn start<S: Shim>(
        shim: &S,
        scenario: &Value,
        window: Duration,
        replies: RawFd,
    ) -> std::io::Result<Child> {
        let stderr = tempfile::tempfile()?;
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills the two descriptors it is given
        os_result(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
        // SAFETY: both descriptors were just opened and are owned here
        let (read_end, write_end) =
            unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        let origin = Instant::now();
        // SAFETY: the child only runs this crate's code and the shim's,
        // then leaves with _exit; the parent's other thread is parked in
        // join (it holds no lock)
        let pid = os_result(unsafe { libc::fork() })?;
        if pid == 0 {
            drop(read_end);
            // SAFETY: the child's standard descriptors now point at its
            // stderr file; the protocol's descriptor is not the child's
            unsafe {
                libc::setpgid(0, 0);
                libc::close(replies);
                libc::dup2(stderr.as_raw_fd(), 2);
                libc::dup2(stderr.as_raw_fd(), 1);
            }
            child_main(shim, scenario, window, write_end, origin);
        }
        // the parent sets the group too, so a kill of the group never
        // races the child's own setpgid
        // SAFETY: plain system calls on the child's pid
        unsafe {
            libc::setpgid(pid, pid);
        }
        drop(write_end);
        Ok(Child {
            pid,
            lines: read_end,
            stderr,
            origin,
        })
    }

    /// Reads the child's lines until it is gone (killed past its window and
    /// grace), then answers.
    fn answer(self, scenario: &Value, window: Duration) -> Answer {
        // the child's window is owed its thread's waits for a CPU (up to
        // one more window, `observe::window_owed`); its deadline here too,
        // read from the same statistics (the runtime's thread is the
        // child's main thread)
        let schedstat = format!("/proc/{}/schedstat", self.pid);
        let waited_at_start = observe::waited_ms(&schedstat);
        let window_ms = window.as_secs_f64() * 1000.0;
        let deadline_now = || {
            let owed = observe::window_owed(
                waited_at_start,
                observe::waited_ms(&schedstat),
                window_ms,
                0.0,
            );
            self.origin + window + Duration::from_secs_f64(owed / 1000.0) + GRACE
        };
        let mut deadline = deadline_now();
        let mut text = Vec::new();
        let mut killed = false;
        let mut status: Option<libc::c_int> = None;
        let fd = self.lines.as_raw_fd();
        loop {
            let mut poll = libc::pollfd {
                fd,
                events: libc::POLLIN,
                revents: 0,
            };
            let wait = deadline
                .saturating_duration_since(Instant::now())
                .min(Duration::from_millis(50));
            // SAFETY: one pollfd, its count given
            let ready = unsafe { libc::poll(&mut poll, 1, wait.as_millis() as libc::c_int) };
            let mut eof = false;
            if ready > 0 {
                let mut buf = [0u8; 65536];
                // SAFETY: reads into the buffer it is given, at most its size
                let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
                if n > 0 {
                    text.extend_from_slice(&buf[..n as usize]);
                    continue;
                }
                eof = n == 0;
            }
            if status.is_none() {
                let mut raw = 0;
                // SAFETY: waits (without blocking) on this process's own child
                if unsafe { libc::waitpid(self.pid, &mut raw, libc::WNOHANG) } == self.pid {
                    status = Some(raw);
                }
            }
            if eof || (status.is_some() && ready <= 0) {
                break;
            }
            if !killed && Instant::now() >= deadline {
                deadline = deadline_now();
            }
            if !killed && Instant::now() >= deadline {
                killed = true;
                // SAFETY: kills the case's own process group
                unsafe {
                    libc::kill(-self.pid, libc::SIGKILL);
                }
            }
        }
        let ended = Instant::now();
        // whatever the case spawned goes with it
        // SAFETY: the case's own process group; the child is reaped below
        unsafe {
            libc::kill(-self.pid, libc::SIGKILL);
        }
        let status = status.unwrap_or_else(|| {
            let mut raw = 0;
            // SAFETY: waits on this process's own child, now killed
            unsafe { libc::waitpid(self.pid, &mut raw, 0) };
            raw
        });
        let last_words = forward_stderr(self.stderr);
        let mut events = Vec::new();
        let mut aborted_at = None;
        for line in text.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
            let Ok(line) = serde_json::from_slice::<Value>(line) else {
                continue;
            };
            if let Some(answer) = line.get("answer") {
                return answer_of(answer);
            }
            if let Some(ns) = line["aborted"].as_u64() {
                aborted_at = Some(self.origin + Duration::from_nanos(ns));
            }
            if let Some(event) = event_of(&line, self.origin) {
                events.push(event);
            }
        }
        let ran = ran_of(scenario, events, aborted_at, ended);
        let wall = (ended - self.origin).as_secs_f64() * 1000.0;
        let turn = if killed {
            json!("pending")
        } else {
            json!({"rejected": {
                "name": "crash",
                "message": format!("{}{last_words}", death(status)),
                "afterAbort": aborted_at.is_some(),
                "carriesAbort": false,
            }})
        };
        Answer::Observation(json!({
            "registration": "ok",
            "turn": turn,
            "results": [],
            "ran": ran,
            "uncaught": 0,
            "measured": {"wallMs": (wall * 1000.0).round() / 1000.0,
                         "peakMemoryGrowthBytes": 0, "deliveredBytes": 0},
        }))
    }
}

/// How the child ended, in words.
fn death(status: libc::c_int) -> String {
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        let name = match signal {
            libc::SIGABRT => "SIGABRT",
            libc::SIGSEGV => "SIGSEGV",
            libc::SIGKILL => "SIGKILL",
            libc::SIGBUS => "SIGBUS",
            libc::SIGILL => "SIGILL",
            _ => "a signal",
        };
        format!("the runtime killed its process: signal {signal} ({name})")
    } else {
        format!(
            "the runtime ended its process (exit status {}) before the turn ended",
            libc::WEXITSTATUS(status)
        )
    }
}

/// Copies the child's stderr to this process's (where the runner keeps it
/// with the case) and returns its last lines, for the crash's message.
fn forward_stderr(mut file: std::fs::File) -> String {
    let mut text = Vec::new();
    if file.rewind().is_ok() {
        let _ = Read::by_ref(&mut file)
            .take(STDERR_KEPT as u64)
            .read_to_end(&mut text);
    }
    let _ = std::io::stderr().write_all(&text);
    let text = String::from_utf8_lossy(&text);
    let last: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .rev()
        .take(2)
        .collect();
    let last: Vec<String> = last.into_iter().map(without_thread_ids).collect();
    if last.is_empty() {
        String::new()
    } else {
        let words: Vec<&str> = last.iter().rev().map(String::as_str).collect();
        format!("; its stderr ends: {}", words.join(" / "))
    }
}

/// `line` without the thread ids Rust prints after a thread's name
/// (`thread 'main' (4711) has overflowed its stack`): they differ from run
/// to run, and a verdict's text must not.
fn without_thread_ids(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("' (") {
        let after = &rest[at + 3..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with(')') {
            out.push_str(&rest[..at + 1]);
            rest = &after[digits + 1..];
        } else {
            out.push_str(&rest[..at + 3]);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

fn answer_of(answer: &Value) -> Answer {
    if let Some(observation) = answer.get("observation") {
        return Answer::Observation(observation.clone());
    }
    if let Some(reason) = answer["skipped"].as_str() {
        return Answer::Skipped(reason.into());
    }
    Answer::Error(
        answer["error"]
            .as_str()
            .unwrap_or("the case's process answered nothing")
            .into(),
    )
}

fn event_of(line: &Value, origin: Instant) -> Option<ToolEvent> {
    let kind = match line["event"].as_str()? {
        "start" => EventKind::Start,
        "progress" => EventKind::Progress,
        "settle" => EventKind::Settle {
            fulfilled: line["fulfilled"].as_bool()?,
        },
        _ => return None,
    };
    Some(ToolEvent {
        kind,
        index: line["tool"].as_u64()? as usize,
        call_id: line["callId"].as_str().map(str::to_string),
        at: origin + Duration::from_nanos(line["at"].as_u64()?),
    })
}

/// The child: the case on a fresh runtime, every event mirrored to the
/// parent as one line, the answer last; then it leaves without running
/// any destructor (they belong to the parent's state).
fn child_main<S: Shim>(
    shim: &S,
    scenario: &Value,
    window: Duration,
    lines: OwnedFd,
    origin: Instant,
) -> ! {
    let out = Arc::new(std::sync::Mutex::new(std::fs::File::from(lines)));
    let since = move |at: Instant| at.saturating_duration_since(origin).as_nanos() as u64;
    let sink = out.clone();
    let mirror: Mirror = Arc::new(move |happened| {
        let line = match happened {
            Happened::Event(event) => {
                let (name, fulfilled) = match event.kind {
                    EventKind::Start => ("start", None),
                    EventKind::Progress => ("progress", None),
                    EventKind::Settle { fulfilled } => ("settle", Some(fulfilled)),
                };
                json!({"event": name, "tool": event.index, "callId": event.call_id,
                       "fulfilled": fulfilled, "at": since(event.at)})
            }
            Happened::Aborted(at) => json!({"aborted": since(at)}),
        };
        write_line(&sink, &line);
    });
    let answer = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => {
            let release = Release::new();
            match runtime.block_on(observe_case(shim, scenario, window, &release, Some(mirror))) {
                Answer::Observation(observation) => json!({"observation": observation}),
                Answer::Skipped(reason) => json!({"skipped": reason}),
                Answer::Error(message) => json!({"error": message}),
            }
        }
        Err(e) => json!({"error": format!("could not start a tokio runtime: {e}")}),
    };
    write_line(&out, &json!({ "answer": answer }));
    // SAFETY: leaves the child at once; nothing of it is needed any more
    unsafe { libc::_exit(0) }
}

/// One line to the parent, written whole (each `write_all` under the lock).
fn write_line(out: &std::sync::Mutex<std::fs::File>, line: &Value) {
    let mut text = line.to_string();
    text.push('\n');
    let mut file = out.lock().unwrap_or_else(|e| e.into_inner());
    let _ = file.write_all(text.as_bytes());
}
