//! An adapter process behind the protocol: started from `--impl`, greeted,
//! sent one case at a time, watched for hangs, crashes, garbage and floods,
//! killed and restarted when it can no longer be trusted (PROTOCOL.md
//! "Failures of the adapter process"). Nothing here panics on what the
//! adapter does: every misbehaviour becomes a [`Ran`] of the case at hand.

use crate::cases::RunCase;
use crate::protocol::{
    self, BenchReply, BenchReplyBody, BenchRequest, CaseRequest, Hello, Measured, Message,
    ReplyBody, Request, BENCH_CAPABILITY, PROTOCOL_VERSION,
};
use crate::subject::{Attempt, Ran, Subject};
use crate::Error;
use serde_json::Value as Json;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStderr, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use toolgate_core::scenario::invariants;
use toolgate_suite::SuiteDef;

/// Longest reply line read; anything longer is a flood, not an observation.
pub const MAX_LINE: usize = 64 << 20;
/// Stderr kept per case and for the whole session.
const STDERR_PER_CASE: usize = 16 << 10;
const STDERR_SESSION: usize = 256 << 10;
/// How often a waiting run looks for an interruption.
const POLL: Duration = Duration::from_millis(100);
/// How long a stopped adapter may take to exit before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(2);

/// How to run and watch the adapter.
#[derive(Debug, Clone)]
pub struct Options {
    /// The `--impl` command line, split like a shell would (no shell runs).
    pub command: String,
    pub timeout: Duration,
    pub start_timeout: Duration,
    pub max_restarts: u32,
}

enum Line {
    /// A line, and when its end was read: the reply's time, however late
    /// the worker comes to read it.
    Text(Vec<u8>, Instant),
    TooLong,
    Eof,
    Failed(String),
}

/// Stderr of the running process, shared with its reader thread: the
/// adapter's stderr pipe and what was read from it since the last
/// take. Reads happen only under this struct's lock, by the reader thread
/// or by [`Stderr::drain`] when a case ends, so once a reply has arrived,
/// everything the adapter wrote to stderr before it is in `case`: the
/// adapter finished those writes before it wrote the reply, so they are in
/// the pipe or already read, never in a reader's hands outside the lock.
#[derive(Default)]
struct Stderr {
    pipe: Option<ChildStderr>,
    case: Vec<u8>,
    case_dropped: usize,
}

impl Stderr {
    /// Keeps `bytes`, dropping the oldest past twice the per-case cap.
    fn keep(&mut self, bytes: &[u8]) {
        self.case.extend_from_slice(bytes);
        if self.case.len() > 2 * STDERR_PER_CASE {
            let drop = self.case.len() - STDERR_PER_CASE;
            self.case.drain(..drop);
            self.case_dropped += drop;
        }
    }

    /// What was kept since the last take, rendered; the pipe stays.
    fn take_text(&mut self) -> String {
        let text = render_stderr(self);
        self.case.clear();
        self.case_dropped = 0;
        text
    }

    /// Reads what the pipe holds now, without blocking (unix: the pipe is
    /// non-blocking). Returns `false` at end of file or on an error.
    fn drain(&mut self) -> bool {
        let mut buf = [0u8; 8192];
        loop {
            let Some(pipe) = self.pipe.as_mut() else {
                return false;
            };
            match pipe.read(&mut buf) {
                Ok(0) => {
                    self.pipe = None;
                    return false;
                }
                Ok(n) => {
                    self.keep(&buf[..n]);
                    // a blocking pipe (not unix) is read one chunk at a time
                    if !cfg!(unix) {
                        return true;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return true,
                Err(_) => {
                    self.pipe = None;
                    return false;
                }
            }
        }
    }
}

struct Process {
    child: Child,
    /// Lines for the writer thread, which owns the adapter's stdin: a
    /// request is never written from the run loop, so an adapter that stops
    /// reading cannot block the runner past the case's timeout.
    stdin: Option<mpsc::Sender<String>>,
    lines: Receiver<Line>,
    stderr: Arc<Mutex<Stderr>>,
    stderr_thread: Option<JoinHandle<()>>,
}

/// A running adapter with its session state.
pub struct Adapter {
    options: Options,
    argv: Vec<String>,
    hello: Hello,
    process: Option<Process>,
    seq: u64,
    restarts: u32,
    /// Set when the run gives up on the adapter: why.
    gave_up: Option<String>,
    /// Stderr of processes already gone, not yet given to a case.
    pending_stderr: String,
    session_stderr: String,
    /// While a patient attempt waits: its process group's CPU time.
    clock: Option<crate::busy::GroupClock>,
}

impl Adapter {
    /// Starts the adapter and completes the handshake.
    pub fn start(options: Options) -> Result<Adapter, Error> {
        let argv = shell_words::split(&options.command)
            .map_err(|e| Error::usage(format!("--impl {:?}: {e}", options.command)))?;
        if argv.is_empty() {
            return Err(Error::usage("--impl is empty"));
        }
        let mut adapter = Adapter {
            options,
            argv,
            hello: crate::subject::reference_hello(),
            process: None,
            seq: 0,
            restarts: 0,
            gave_up: None,
            pending_stderr: String::new(),
            clock: None,
            session_stderr: String::new(),
        };
        adapter.hello = adapter.spawn()?;
        Ok(adapter)
    }

    fn spawn(&mut self) -> Result<Hello, Error> {
        let mut command = Command::new(&self.argv[0]);
        command
            .args(&self.argv[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            // its own process group, so a kill reaches what it started too
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = command
            .spawn()
            .map_err(|e| Error::Adapter(format!("cannot start {:?}: {e}", self.argv[0])))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stdin_pipe = child.stdin.take().expect("piped stdin");
        let (stdin, requests) = mpsc::channel::<String>();
        std::thread::spawn(move || write_lines(stdin_pipe, requests));
        let stderr_pipe = child.stderr.take().expect("piped stderr");
        let (tx, lines) = mpsc::sync_channel(4);
        std::thread::spawn(move || read_lines(stdout, tx));
        // the pipe is in place before the first request, so the first
        // case's drain finds it
        let stderr = Arc::new(Mutex::new(Stderr::default()));
        let sink = Arc::clone(&stderr);
        let stderr_thread = match into_shared(stderr_pipe, &stderr) {
            Ok(fd) => std::thread::spawn(move || poll_stderr(fd, sink)),
            Err(pipe) => std::thread::spawn(move || read_blocking(pipe, &sink)),
        };
        self.process = Some(Process {
            stdin: Some(stdin),
            child,
            lines,
            stderr,
            stderr_thread: Some(stderr_thread),
        });
        self.seq = 0;
        match self.handshake() {
            Ok(hello) => {
                self.take_stderr_into_session();
                Ok(hello)
            }
            Err(message) => {
                let status = self.kill();
                let stderr = self.take_case_stderr();
                let mut message = format!("handshake failed: {message}");
                if let Some(status) = status {
                    message.push_str(&format!(" (adapter {status})"));
                }
                if !stderr.is_empty() {
                    message.push_str(&format!("\nadapter stderr:\n{}", stderr.trim_end()));
                }
                Err(Error::Adapter(message))
            }
        }
    }

    fn handshake(&mut self) -> Result<Hello, String> {
        self.send(&Request::Start {
            protocol: PROTOCOL_VERSION,
        })
        .map_err(|e| format!("cannot write the start request: {e}"))?;
        let deadline = Instant::now() + self.options.start_timeout;
        let value = match self.next_line(deadline) {
            Reply::Value(v, _) => v,
            Reply::Garbage(m) => return Err(m),
            Reply::Interrupted => return Err("the run was interrupted".into()),
            Reply::Timeout => {
                return Err(format!(
                    "no reply to start within {:?}",
                    self.options.start_timeout
                ))
            }
            Reply::Closed(m) => return Err(m),
        };
        if let Some(p) = value.get("protocol").and_then(Json::as_u64) {
            if p != PROTOCOL_VERSION {
                return Err(format!(
                    "the adapter speaks protocol {p}, this runner speaks {PROTOCOL_VERSION}"
                ));
            }
        }
        protocol::validate(Message::StartReply, &value)
            .map_err(|e| format!("the start reply does not match the protocol: {e}"))?;
        serde_json::from_value(value).map_err(|e| format!("the start reply: {e}"))
    }

    fn send(&mut self, request: &Request) -> std::io::Result<()> {
        let line = protocol::request_line(request).map_err(std::io::Error::other)?;
        self.write_line(&line)
    }

    fn write_line(&mut self, line: &str) -> std::io::Result<()> {
        self.process
            .as_ref()
            .and_then(|p| p.stdin.as_ref())
            .ok_or_else(|| std::io::Error::other("stdin closed"))?
            .send(line.to_string())
            .map_err(|_| std::io::Error::other("the adapter's stdin is closed"))
    }

    fn next_line(&mut self, deadline: Instant) -> Reply {
        let Some(process) = self.process.as_mut() else {
            return Reply::Closed("the adapter is not running".into());
        };
        // wait in slices, so that an interrupted run does not sit out the
        // case's timeout
        let received = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match process.lines.recv_timeout(left.min(POLL)) {
                Err(RecvTimeoutError::Timeout) if !left.is_zero() => {
                    if crate::run::interrupted() {
                        return Reply::Interrupted;
                    }
                    if let Some(clock) = self.clock.as_mut() {
                        clock.tick();
                    }
                }
                other => break other,
            }
        };
        match received {
            Ok(Line::Text(bytes, arrived)) => match parse_line(&bytes) {
                Some(v @ Json::Object(_)) => Reply::Value(v, arrived),
                _ => Reply::Garbage(format!(
                    "stdout line is not a JSON object: {}",
                    excerpt(&bytes)
                )),
            },
            Ok(Line::TooLong) => {
                Reply::Garbage(format!("stdout line longer than {} MiB", MAX_LINE >> 20))
            }
            Ok(Line::Failed(e)) => Reply::Closed(format!("reading stdout failed: {e}")),
            Ok(Line::Eof) | Err(RecvTimeoutError::Disconnected) => {
                Reply::Closed("the adapter closed stdout".into())
            }
            Err(RecvTimeoutError::Timeout) => Reply::Timeout,
        }
    }

    /// Kills the process (and its group), reaps it, and returns its status.
    fn kill(&mut self) -> Option<ExitStatus> {
        let mut process = self.process.take()?;
        drop(process.stdin.take());
        #[cfg(unix)]
        {
            // SAFETY: kill(2) on the group we created at spawn; it has no
            // memory effects on this process.
            unsafe {
                libc::kill(-(process.child.id() as i32), libc::SIGKILL);
            }
        }
        let _ = process.child.kill();
        let status = process.child.wait().ok();
        self.finish_stderr(&mut process);
        status
    }

    /// Waits (briefly) for a dying process, kills it if needed, and returns
    /// how it ended.
    fn reap(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_millis(500);
        let status = loop {
            let Some(process) = self.process.as_mut() else {
                break None;
            };
            match process.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                _ => break self.kill(),
            }
        };
        if let Some(mut process) = self.process.take() {
            self.finish_stderr(&mut process);
        }
        match status {
            Some(s) => format!("the adapter exited ({s}) before replying"),
            None => "the adapter closed stdout before replying".into(),
        }
    }

    /// Lets the stderr reader drain what the process wrote before it ended.
    fn finish_stderr(&mut self, process: &mut Process) {
        if let Some(thread) = process.stderr_thread.take() {
            let deadline = Instant::now() + Duration::from_millis(500);
            while !thread.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(2));
            }
            if thread.is_finished() {
                let _ = thread.join();
            }
        }
        let text = process
            .stderr
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take_text();
        self.pending_stderr.push_str(&text);
    }

    fn take_case_stderr(&mut self) -> String {
        let mut text = std::mem::take(&mut self.pending_stderr);
        if let Some(process) = &self.process {
            let mut kept = process.stderr.lock().unwrap_or_else(|e| e.into_inner());
            // what the adapter wrote before its reply is in the pipe now
            if cfg!(unix) {
                kept.drain();
            }
            text.push_str(&kept.take_text());
        }
        text
    }

    fn take_stderr_into_session(&mut self) {
        let text = self.take_case_stderr();
        push_capped(&mut self.session_stderr, &text, STDERR_SESSION);
    }

    /// Restarts a dead adapter, unless the cap is reached.
    fn ensure_running(&mut self) -> Result<(), String> {
        if let Some(why) = &self.gave_up {
            return Err(why.clone());
        }
        if self.process.is_some() {
            return Ok(());
        }
        if self.restarts >= self.options.max_restarts {
            let why = format!(
                "not run: the adapter failed after {} restart(s) (--max-restarts)",
                self.restarts
            );
            self.gave_up = Some(why.clone());
            return Err(why);
        }
        self.restarts += 1;
        match self.spawn() {
            Ok(hello) if hello == self.hello => Ok(()),
            Ok(_) => {
                self.kill();
                let why = "not run: the restarted adapter announced itself differently".to_string();
                self.gave_up = Some(why.clone());
                Err(why)
            }
            Err(e) => {
                let why = format!("not run: restarting the adapter failed: {e}");
                self.gave_up = Some(why.clone());
                Err(why)
            }
        }
    }

    /// Sends the request `make(seq)`, calls `meanwhile` (if given) once
    /// the request is on its way, and waits up to `timeout` from the
    /// sending for one reply line: the reply's JSON and when it arrived,
    /// or how the exchange failed (the process killed when it can no
    /// longer be trusted).
    fn round_trip(
        &mut self,
        make: impl FnOnce(u64) -> Request,
        timeout: Duration,
        meanwhile: &mut Option<&mut dyn FnMut()>,
    ) -> Result<(u64, Json, Instant), Ran> {
        self.ensure_running().map_err(Ran::NotRun)?;
        self.seq += 1;
        let seq = self.seq;
        let line = protocol::request_line(&make(seq)).map_err(Ran::Error)?;
        if self.write_line(&line).is_err() {
            return Err(Ran::Crash(self.reap()));
        }
        let deadline = Instant::now() + timeout;
        if let Some(meanwhile) = meanwhile.take() {
            meanwhile();
        }
        match self.next_line(deadline) {
            // a reply read late, because `meanwhile` ran past the
            // deadline, still came too late
            Reply::Value(_, arrived) if arrived > deadline => {
                self.kill();
                Err(Ran::Timeout(timeout))
            }
            Reply::Value(v, arrived) => Ok((seq, v, arrived)),
            Reply::Garbage(m) => {
                self.kill();
                Err(Ran::Error(m))
            }
            Reply::Timeout => {
                self.kill();
                Err(Ran::Timeout(timeout))
            }
            Reply::Interrupted => {
                self.kill();
                Err(Ran::NotRun("not run: the run was interrupted".into()))
            }
            Reply::Closed(_) => Err(Ran::Crash(self.reap())),
        }
    }

    /// One case's exchange, with what the adapter wrote to stderr
    /// meanwhile; `meanwhile` is called once, while the adapter works on
    /// the case if it could be sent.
    fn attempt(
        &mut self,
        case: &RunCase,
        patience: Option<u32>,
        mut meanwhile: Option<&mut dyn FnMut()>,
    ) -> Attempt {
        let start = Instant::now();
        // a patient attempt watches how busy the adapter's processes are,
        // to tell a turn still working at the end of its window from one
        // stuck (the adapter leads its own process group)
        self.clock = patience.and_then(|_| {
            let group = self
                .ensure_running()
                .ok()
                .and(self.process.as_ref())?
                .child
                .id();
            Some(crate::busy::GroupClock::new(i32::try_from(group).ok()?))
        });
        let (ran, arrived) = self.exchange(case, patience, &mut meanwhile);
        let busy_at_end = self.clock.take().and_then(|mut c| c.share_now());
        let duration = match arrived {
            Some(arrived) => arrived.saturating_duration_since(start),
            None => start.elapsed(),
        };
        if let Some(meanwhile) = meanwhile.take() {
            meanwhile();
        }
        let mut stderr = self.take_case_stderr();
        if stderr.len() > STDERR_PER_CASE {
            let cut = floor_char_boundary(&stderr, stderr.len() - STDERR_PER_CASE);
            stderr = format!("[{cut} earlier bytes dropped]\n{}", &stderr[cut..]);
        }
        Attempt {
            ran,
            stderr,
            duration,
            busy_at_end,
        }
    }

    /// The case's exchange, and when its reply arrived.
    fn exchange(
        &mut self,
        case: &RunCase,
        patience: Option<u32>,
        meanwhile: &mut Option<&mut dyn FnMut()>,
    ) -> (Ran, Option<Instant>) {
        // a case the contract lets run long (bash to its timeout) gets
        // that long, whatever --timeout says; a patient run as many times
        let needed = Duration::try_from_secs_f64(case.suite.case_seconds(&case.scenario))
            .unwrap_or_default();
        let timeout = self.options.timeout.max(needed) * patience.unwrap_or(1);
        let request = |seq| Request::Run {
            seq,
            case: Box::new(CaseRequest {
                id: case.id.clone(),
                suite: case.suite.id().to_string(),
                scenario: case.scenario.clone(),
                needs: case.suite.capabilities(&case.scenario),
                patience,
            }),
        };
        let (seq, value, arrived) = match self.round_trip(request, timeout, meanwhile) {
            Ok(reply) => reply,
            Err(ran) => return (ran, None),
        };
        let ran = match read_reply(seq, value, case.suite) {
            Ok(ran) => ran,
            Err(violation) => {
                // the stream is out of step with the requests: start afresh
                self.kill();
                Ran::Error(violation)
            }
        };
        (ran, Some(arrived))
    }
}

/// How a `bench` request went.
#[derive(Debug, Clone)]
pub enum BenchRan {
    Measured(Measured),
    Skipped(String),
    /// The adapter answered `error`, broke the protocol, hung or died: a
    /// [`Ran`] other than an observation, with its stderr.
    Failed(Ran, String),
}

impl Adapter {
    /// Whether the adapter announced `bench`.
    pub fn times_calls(&self) -> bool {
        self.hello
            .capabilities
            .iter()
            .any(|c| c == BENCH_CAPABILITY)
    }

    /// Times one family at one size in the adapter's process, waiting at
    /// most `timeout`.
    pub fn bench(&mut self, bench: &BenchRequest, timeout: Duration) -> BenchRan {
        let request = |seq| Request::Bench {
            seq,
            bench: bench.clone(),
        };
        let ran = match self.round_trip(request, timeout, &mut None) {
            Ok((seq, value, _)) => match read_bench_reply(seq, value) {
                Ok(ran) => ran,
                Err(violation) => {
                    self.kill();
                    BenchRan::Failed(Ran::Error(violation), String::new())
                }
            },
            Err(ran) => BenchRan::Failed(ran, String::new()),
        };
        match ran {
            BenchRan::Failed(ran, _) => BenchRan::Failed(ran, self.take_case_stderr()),
            other => {
                self.take_stderr_into_session();
                other
            }
        }
    }

    /// Stops the process (a new one starts with the next request), so
    /// that what one measurement left in memory does not weigh on the
    /// next; not counted as a restart.
    pub fn recycle(&mut self) {
        if self.process.is_some() {
            self.kill();
            self.take_stderr_into_session();
            match self.spawn() {
                Ok(hello) if hello == self.hello => {}
                Ok(_) => {
                    self.kill();
                    self.gave_up =
                        Some("not run: the restarted adapter announced itself differently".into());
                }
                Err(e) => {
                    self.gave_up = Some(format!("not run: restarting the adapter failed: {e}"))
                }
            }
        }
    }
}

/// A reply to `bench` number `seq`.
fn read_bench_reply(seq: u64, value: Json) -> Result<BenchRan, String> {
    protocol::validate(Message::BenchReply, &value)
        .map_err(|e| format!("the bench reply does not match the protocol: {e}"))?;
    let got = value.get("seq").and_then(Json::as_u64).unwrap_or(0);
    if got != seq {
        return Err(format!(
            "a reply for seq {got} arrived while waiting for seq {seq}"
        ));
    }
    let reply: BenchReply =
        serde_json::from_value(value).map_err(|e| format!("the bench reply: {e}"))?;
    Ok(match reply.body {
        BenchReplyBody::Measured(m) => BenchRan::Measured(m),
        BenchReplyBody::Skipped { reason } => BenchRan::Skipped(reason),
        BenchReplyBody::Error { message } => BenchRan::Failed(
            Ran::Error(format!("the adapter reported: {message}")),
            String::new(),
        ),
    })
}

impl Subject for Adapter {
    fn hello(&self) -> &Hello {
        &self.hello
    }

    fn run(&mut self, case: &RunCase) -> Attempt {
        self.attempt(case, None, None)
    }

    fn run_overlapped(&mut self, case: &RunCase, meanwhile: &mut dyn FnMut()) -> Attempt {
        self.attempt(case, None, Some(meanwhile))
    }

    fn run_patiently(&mut self, case: &RunCase, patience: u32) -> Attempt {
        self.attempt(case, Some(patience), None)
    }

    fn finish(&mut self) -> String {
        if self.process.is_some() {
            let _ = self.send(&Request::Stop);
            if let Some(process) = self.process.as_mut() {
                drop(process.stdin.take());
            }
            let deadline = Instant::now() + STOP_GRACE;
            while let Some(process) = self.process.as_mut() {
                match process.child.try_wait() {
                    Ok(None) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(5))
                    }
                    Ok(Some(_)) => {
                        let mut process = self.process.take().expect("checked");
                        self.finish_stderr(&mut process);
                    }
                    _ => {
                        self.kill();
                    }
                }
            }
        }
        self.take_stderr_into_session();
        std::mem::take(&mut self.session_stderr)
    }

    fn command(&self) -> Option<&str> {
        Some(&self.options.command)
    }

    fn restarts(&self) -> u32 {
        self.restarts
    }

    fn gave_up(&self) -> bool {
        self.gave_up.is_some()
    }
}

impl Drop for Adapter {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A reply to `run` number `seq` of a case of `suite`: `Ok` with what it
/// says (an observation in the suite's canonical form), `Err` when it breaks
/// the protocol (an observation the suite's schema or decoder refuses
/// included).
fn read_reply(seq: u64, value: Json, suite: &dyn SuiteDef) -> Result<Ran, String> {
    protocol::validate(Message::RunReply, &value)
        .map_err(|e| format!("the reply does not match the protocol: {e}"))?;
    let got = value.get("seq").and_then(Json::as_u64).unwrap_or(0);
    if got != seq {
        return Err(if got < seq {
            format!("a reply for seq {got} arrived while waiting for seq {seq}: the adapter answered seq {got} twice or out of order")
        } else {
            format!("a reply for seq {got} arrived while waiting for seq {seq}")
        });
    }
    if let Some(observation) = value.get("observation") {
        protocol::validate_observation(suite, observation).map_err(|e| {
            format!(
                "the observation does not match the observation format of the {} suite: {e}",
                suite.id()
            )
        })?;
    }
    let reply: protocol::RunReply =
        serde_json::from_value(value).map_err(|e| format!("the reply: {e}"))?;
    Ok(match reply.body {
        ReplyBody::Observation(o) => Ran::Observed(
            suite
                .canonical_observation(&o)
                .map_err(|e| format!("the reply: {e}"))?,
        ),
        ReplyBody::Skipped { reason } => Ran::Skipped(reason),
        ReplyBody::NotApplicable { reason } => Ran::NotApplicable(reason),
        ReplyBody::Error { message } => Ran::Error(format!("the adapter reported: {message}")),
    })
}

/// Writes request lines to the adapter until the channel or the pipe
/// closes; dropping the sender closes stdin.
fn write_lines(mut stdin: ChildStdin, requests: Receiver<String>) {
    for line in requests {
        if stdin.write_all(line.as_bytes()).is_err() || stdin.flush().is_err() {
            return;
        }
    }
}

/// Reads stdout into lines of at most [`MAX_LINE`] bytes; the bounded
/// channel makes a flooding adapter wait instead of filling memory.
fn read_lines(stdout: impl Read, tx: mpsc::SyncSender<Line>) {
    let mut reader = BufReader::with_capacity(1 << 16, stdout);
    loop {
        let mut line = Vec::new();
        loop {
            let buf = match reader.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let _ = tx.send(Line::Failed(e.to_string()));
                    return;
                }
            };
            if buf.is_empty() {
                if !line.is_empty() {
                    let _ = tx.send(Line::Text(line, Instant::now()));
                }
                let _ = tx.send(Line::Eof);
                return;
            }
            if let Some(i) = buf.iter().position(|&b| b == b'\n') {
                line.extend_from_slice(&buf[..i]);
                reader.consume(i + 1);
                break;
            }
            let n = buf.len();
            line.extend_from_slice(buf);
            reader.consume(n);
            if line.len() > MAX_LINE {
                let _ = tx.send(Line::TooLong);
                return;
            }
        }
        if line.len() > MAX_LINE {
            let _ = tx.send(Line::TooLong);
            return;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if tx.send(Line::Text(line, Instant::now())).is_err() {
            return;
        }
    }
}

/// On unix: makes the pipe non-blocking and puts it under the lock, for
/// [`poll_stderr`] and [`Stderr::drain`]; its descriptor for polling. The
/// pipe back when that cannot be done (it is then read blocking, outside
/// the lock, as on other systems).
#[cfg(unix)]
fn into_shared(pipe: ChildStderr, shared: &Mutex<Stderr>) -> Result<i32, ChildStderr> {
    use std::os::fd::AsRawFd;
    let fd = pipe.as_raw_fd();
    // SAFETY: fcntl(2) on a descriptor this process owns; no memory is
    // shared with the kernel.
    let nonblocking = unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFL);
        flags >= 0 && libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) == 0
    };
    if !nonblocking {
        return Err(pipe);
    }
    shared.lock().unwrap_or_else(|e| e.into_inner()).pipe = Some(pipe);
    Ok(fd)
}

#[cfg(not(unix))]
fn into_shared(pipe: ChildStderr, _: &Mutex<Stderr>) -> Result<i32, ChildStderr> {
    Err(pipe)
}

/// Keeps reading the adapter's stderr so that it never blocks on a full
/// pipe, keeping the last [`STDERR_PER_CASE`] bytes written since the last
/// take: waits with `poll(2)` outside the lock, then reads under it (see
/// [`Stderr`]).
#[cfg(unix)]
fn poll_stderr(fd: i32, sink: Arc<Mutex<Stderr>>) {
    loop {
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: poll(2) on one valid pollfd that lives across the call;
        // `fd` stays open because the pipe is dropped only by this thread's
        // drain (at end of file) or with `sink`, which this thread holds.
        unsafe {
            libc::poll(&mut pfd, 1, 100);
        }
        let mut kept = sink.lock().unwrap_or_else(|e| e.into_inner());
        if !kept.drain() {
            return;
        }
    }
}

#[cfg(not(unix))]
fn poll_stderr(_: i32, _: Arc<Mutex<Stderr>>) {}

/// Blocking reads outside the lock (best effort: a reply may overtake the
/// last stderr bytes written before it).
fn read_blocking(mut pipe: ChildStderr, sink: &Mutex<Stderr>) {
    let mut buf = [0u8; 8192];
    loop {
        match pipe.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => sink
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .keep(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
    }
}

fn render_stderr(kept: &Stderr) -> String {
    let text = String::from_utf8_lossy(&kept.case);
    if kept.case_dropped > 0 {
        format!("[{} earlier bytes dropped]\n{text}", kept.case_dropped)
    } else {
        text.into_owned()
    }
}

fn push_capped(into: &mut String, text: &str, cap: usize) {
    let room = cap.saturating_sub(into.len());
    into.push_str(&text[..floor_char_boundary(text, room.min(text.len()))]);
}

/// The largest char boundary of `s` at or before byte `i`.
pub(crate) fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A reply line as JSON. JavaScript's `JSON.stringify` escapes lone
/// surrogates (`"\uD800"`), which serde_json refuses; an implementation
/// that leaves them unescaped in a result must fail its case, not break
/// the protocol, so such lines are read with each lone surrogate as U+FFFD.
fn parse_line(bytes: &[u8]) -> Option<Json> {
    match serde_json::from_slice::<Json>(bytes) {
        Ok(v) => Some(v),
        Err(_) => {
            let text = std::str::from_utf8(bytes).ok()?;
            invariants::parse_json_allowing_lone_surrogates(text).ok()
        }
    }
}

/// The start of a bad line, for messages.
fn excerpt(bytes: &[u8]) -> String {
    const SHOWN: usize = 120;
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(SHOWN)]);
    if bytes.len() > SHOWN {
        format!("{text:?}… ({} bytes)", bytes.len())
    } else {
        format!("{text:?}")
    }
}

enum Reply {
    Interrupted,
    /// A reply, and when it arrived.
    Value(Json, Instant),
    Garbage(String),
    Timeout,
    Closed(String),
}
