//! The runner's terminal output: stdout (a run's summary, tables, lists)
//! and stderr (the cases that went wrong, notes, errors). A reader that
//! has gone (`toolgate run ... 2>&1 | head`) is its own choice: what is
//! written to it is dropped, the run goes on, and the reports it writes to
//! files are written all the same, where `print!` and `eprint!` would
//! panic and lose them.

use std::io::{ErrorKind, Write};

/// Writes `text` to stdout.
pub fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = write(&mut stdout, text) {
        err(&format!("toolgate: writing to stdout: {e}\n"));
    }
}

/// Writes `text` to stderr.
pub fn err(text: &str) {
    // nowhere is left to say that stderr failed
    let _ = write(&mut std::io::stderr().lock(), text);
}

/// Writes and flushes; a closed pipe is no error.
fn write(to: &mut impl Write, text: &str) -> std::io::Result<()> {
    match to.write_all(text.as_bytes()).and_then(|()| to.flush()) {
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
