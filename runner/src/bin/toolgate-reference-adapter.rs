//! The Rust reference behind the adapter protocol (runner/PROTOCOL.md): the
//! runner's own tests drive it over stdio, and it is the smallest complete
//! example of an adapter. Usage: `toolgate run --impl toolgate-reference-adapter`.

use std::io::{stdin, stdout, BufWriter};
use toolgate_runner::protocol::{serve, ReplyBody};
use toolgate_runner::subject::reference_hello;

fn main() {
    let hello = reference_hello();
    let result = serve(
        stdin().lock(),
        BufWriter::new(stdout().lock()),
        &hello,
        |case| {
            // a real adapter builds the scenario's objects in its language and
            // drives its implementation; the reference model does both
            let Some(suite) = toolgate_suites::get(&case.suite) else {
                return ReplyBody::Error {
                    message: format!("no suite {:?} here", case.suite),
                };
            };
            match suite.observe(&case.scenario) {
                Ok(observation) => ReplyBody::Observation(observation),
                Err(e) => ReplyBody::Error {
                    message: e.to_string(),
                },
            }
        },
    );
    if let Err(e) = result {
        eprintln!("toolgate-reference-adapter: {e}");
        std::process::exit(1);
    }
}
