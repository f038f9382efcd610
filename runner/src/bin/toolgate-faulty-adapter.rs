//! The reference adapter with one deliberate fault, for the runner's
//! robustness tests (and for checking how a CI setup reports a broken
//! adapter). Usage:
//!
//! ```text
//! toolgate-faulty-adapter <fault> [--at N] [--once FILE]
//! ```
//!
//! The fault strikes at the `run` request with `seq` N (default 2) of every
//! adapter process, or, with `--once FILE`, only in the first process that
//! finds FILE absent (it creates it), so a restarted adapter behaves.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use toolgate_core::scenario::{observe, Observation, Scenario};
use toolgate_runner::protocol::{BenchReply, BenchReplyBody, ReplyBody, Request, RunReply};
use toolgate_runner::subject::reference_hello;

#[derive(Clone, Copy, PartialEq, clap::ValueEnum)]
enum Fault {
    /// Never answers the case.
    Hang,
    /// Writes to stderr and exits with status 3 instead of answering.
    Crash,
    /// Answers with a line that is not JSON.
    Garbage,
    /// Answers with the next sequence number.
    WrongSeq,
    /// Answers the case twice.
    Twice,
    /// Never answers `start`.
    NoHandshake,
    /// Answers `start` with protocol version 2.
    WrongProtocol,
    /// Writes an endless line to stdout instead of answering.
    Flood,
    /// Answers with an observation that breaks the observation format.
    BadObservation,
    /// Answers `error` (a scenario the adapter cannot build).
    ReplyError,
    /// Writes to stderr while answering correctly.
    Chatty,
    /// Writes a note to stderr right before every reply (no `--at`), to
    /// check that each note stays with its own case.
    ChattyAll,
    /// Answers with a lone surrogate escaped at the start of the first
    /// result's content, as `JSON.stringify` writes one.
    LoneSurrogate,
    /// In every case (whatever `--at`), loses the last effect of each call
    /// that has two or more: a subtly wrong implementation, for the tests of
    /// shrinking and expected failures.
    LoseEffect,
    /// Answers `notApplicable` (the case cannot exist in this
    /// implementation), then behaves.
    NotApplicable,
    /// A latch around the case: creates `received` in the `--latch`
    /// directory, waits for `release` there (at most a minute), answers,
    /// then creates `answered`; for the test that the runner works while
    /// the adapter does.
    Hold,
    /// In every boundary case (whatever `--at`), spends a window busy
    /// computing and calls the turn pending, until the runner's patience
    /// reaches its most (`run::MAX_PATIENCE`): a slow turn on a loaded
    /// machine.
    SlowTurn,
    /// In every boundary case, spends a window idle and calls the turn
    /// pending, whatever the patience: a stuck turn.
    StuckTurn,
    /// In every boundary case, spends a window busy and calls the turn
    /// pending, whatever the patience: a turn still working however long
    /// (rmcp's on an output of 999,000 keys).
    BusyTurn,
}

/// The window of the turn faults: longer than the half second over which
/// the runner measures how busy an adapter was.
const WINDOW: std::time::Duration = std::time::Duration::from_millis(800);

#[derive(clap::Parser)]
struct Args {
    #[arg(value_enum)]
    fault: Fault,
    #[arg(long, default_value_t = 2)]
    at: u64,
    #[arg(long)]
    once: Option<PathBuf>,
    #[arg(long, default_value = ".")]
    latch: PathBuf,
}

fn main() {
    let args: Args = clap::Parser::parse();
    let strikes = match &args.once {
        Some(path) => std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .is_ok(),
        None => true,
    };
    let fault = |f: Fault| strikes && args.fault == f;
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut send = |line: String| {
        let _ = out.write_all(line.as_bytes());
        let _ = out.write_all(b"\n");
        let _ = out.flush();
    };
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
        let request: Request = match serde_json::from_str(&line) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("bad request: {e}");
                return;
            }
        };
        match request {
            Request::Start { .. } => {
                if fault(Fault::NoHandshake) {
                    hang();
                }
                let mut hello = serde_json::to_value(reference_hello()).expect("hello");
                if fault(Fault::WrongProtocol) {
                    hello["protocol"] = 2.into();
                }
                send(hello.to_string());
            }
            Request::Stop => return,
            Request::Bench { seq, .. } => send(
                serde_json::to_string(&BenchReply {
                    seq,
                    body: BenchReplyBody::Error {
                        message: "this adapter does not time calls".into(),
                    },
                })
                .expect("reply"),
            ),
            Request::Run { seq, case }
                if case.suite == "boundary"
                    && matches!(
                        args.fault,
                        Fault::SlowTurn | Fault::StuckTurn | Fault::BusyTurn
                    ) =>
            {
                let pending = args.fault != Fault::SlowTurn
                    || case.patience.unwrap_or(1) < toolgate_runner::run::MAX_PATIENCE;
                let body = match toolgate_suites::get("boundary")
                    .expect("the boundary suite")
                    .observe(&case.scenario)
                {
                    Ok(mut o) => {
                        if pending {
                            spend_window(args.fault != Fault::StuckTurn);
                            o["turn"] = "pending".into();
                            o["results"] = serde_json::json!([]);
                        }
                        ReplyBody::Observation(o)
                    }
                    Err(e) => ReplyBody::Error {
                        message: e.to_string(),
                    },
                };
                send(serde_json::to_string(&RunReply { seq, body }).expect("reply"));
            }
            Request::Run { seq, case } => {
                // every suite of the corpus is written in the core vocabulary
                let observed = serde_json::from_value::<Scenario>(case.scenario.clone())
                    .map_err(|e| e.to_string())
                    .and_then(|s| observe(&s).map_err(|e| e.to_string()));
                let body = match observed {
                    Ok(mut o) => {
                        if fault(Fault::LoseEffect) {
                            for call in &mut o.calls {
                                if call.trace.len() >= 2 {
                                    call.trace.pop();
                                }
                            }
                        }
                        ReplyBody::Observation(encode(&o))
                    }
                    Err(message) => ReplyBody::Error { message },
                };
                let reply = |seq| {
                    serde_json::to_string(&RunReply {
                        seq,
                        body: body.clone(),
                    })
                    .expect("reply")
                };
                if args.fault == Fault::ChattyAll {
                    eprintln!("faulty adapter: a note on stderr for seq {seq}");
                    send(reply(seq));
                    continue;
                }
                if seq != args.at {
                    send(reply(seq));
                    continue;
                }
                match args.fault {
                    _ if !strikes => send(reply(seq)),
                    Fault::Hang => hang(),
                    Fault::Crash => {
                        eprintln!("faulty adapter: crashing on purpose at seq {seq}");
                        std::process::exit(3);
                    }
                    Fault::Garbage => send("this is not JSON".into()),
                    Fault::WrongSeq => send(reply(seq + 1)),
                    Fault::Twice => {
                        send(reply(seq));
                        send(reply(seq));
                    }
                    Fault::Flood => {
                        let chunk = vec![b'x'; 1 << 16];
                        while out.write_all(&chunk).is_ok() {}
                        return;
                    }
                    Fault::BadObservation => send(format!(
                        r#"{{"seq":{seq},"observation":{{"registrations":[],"calls":[{{"outcome":"exploded"}}],"names":[]}}}}"#
                    )),
                    Fault::ReplyError => send(format!(
                        r#"{{"seq":{seq},"error":{{"message":"cannot build this scenario"}}}}"#
                    )),
                    Fault::LoneSurrogate => {
                        send(reply(seq).replacen(r#""content":""#, r#""content":"\ud800"#, 1))
                    }
                    Fault::NotApplicable => send(format!(
                        r#"{{"seq":{seq},"notApplicable":{{"reason":"this runtime has no dispatcher, so no unknown tool"}}}}"#
                    )),
                    Fault::Chatty => {
                        eprintln!("faulty adapter: a note on stderr for seq {seq}");
                        send(reply(seq));
                    }
                    Fault::Hold => {
                        let _ = std::fs::write(args.latch.join("received"), "");
                        wait_for(&args.latch.join("release"));
                        send(reply(seq));
                        let _ = std::fs::write(args.latch.join("answered"), "");
                    }
                    Fault::NoHandshake
                    | Fault::WrongProtocol
                    | Fault::LoseEffect
                    | Fault::ChattyAll
                    | Fault::SlowTurn
                    | Fault::StuckTurn
                    | Fault::BusyTurn => send(reply(seq)),
                }
            }
        }
    }
}

fn encode(o: &Observation) -> serde_json::Value {
    serde_json::to_value(o).expect("an observation encodes")
}

/// Waits until `path` exists, for at most a minute.
fn wait_for(path: &std::path::Path) {
    for _ in 0..60_000 {
        if path.exists() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Spends [`WINDOW`] computing (`busy`) or asleep.
fn spend_window(busy: bool) {
    let start = std::time::Instant::now();
    if !busy {
        std::thread::sleep(WINDOW);
        return;
    }
    let mut x: u64 = 1;
    while start.elapsed() < WINDOW {
        for _ in 0..10_000 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
    }
}

fn hang() -> ! {
    loop {
        std::thread::sleep(std::time::Duration::from_secs(3600));
    }
}
