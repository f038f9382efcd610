//! Edits of a workspace observation, as data: what a broken
//! implementation could give in place of the reference's observation. The
//! judge must name a requirement for each (never an unnamed difference,
//! never nothing), and must pass the same observation in a real tool's
//! own words on the portable projection. The corpus tests apply them to
//! every recorded case (`tests/workspace_reference.rs`), the properties to
//! every generated or fuzzed scenario (`properties::check`), so the fuzz
//! targets reach the judge's verdicts, not only its silence.

use super::spec::{
    CallResult, Grading, Returned, Text, Thrown, Tool, WorkspaceObservation, WorkspaceScenario,
};
use toolgate_suite::fs_tree::Snapshot;
use toolgate_suite::js_string::JsString;

/// One edited observation and what was edited.
pub type Edit = (String, WorkspaceObservation);

fn text(s: &str) -> Text {
    Text(JsString::new(s))
}

/// The edits judged exactly (the seed's own texts): each result's content
/// changed, its `isError` flipped, it thrown instead of returned; entries
/// of the tree removed (each, or `removals` of them spread over the tree);
/// a file made outside the root.
pub fn exact(o: &WorkspaceObservation, removals: usize) -> Vec<Edit> {
    let mut out = Vec::new();
    for (i, r) in o.results.iter().enumerate() {
        let mut changed = o.clone();
        let mut flipped = o.clone();
        let mut thrown = o.clone();
        if let (Some(c), Some(f), Some(t)) = (
            changed.results.get_mut(i),
            flipped.results.get_mut(i),
            thrown.results.get_mut(i),
        ) {
            *c = match r {
                CallResult::Returned(r) => CallResult::Returned(Returned {
                    content: text(&format!("{}!", r.content.0.to_string_lossy())),
                    is_error: r.is_error,
                }),
                CallResult::Thrown(_) => CallResult::error("x"),
            };
            if let CallResult::Returned(r) = f {
                r.is_error = !r.is_error;
            }
            *t = CallResult::Thrown(Thrown {
                thrown: Text(r.text().clone()),
            });
        }
        out.push((format!("result {i}: content"), changed));
        out.push((format!("result {i}: isError"), flipped));
        out.push((format!("result {i}: thrown"), thrown));
    }
    out.extend(removed_entries(o, removals));
    let mut made = o.clone();
    made.tree
        .push(Snapshot::file("outside/made-by-the-call".into(), b"x"));
    out.push(("a file made outside".into(), made));
    out
}

/// `o` as a real tool with its own words would give it: every message
/// replaced, every allowed read wrapped in the tool's own notices, graded
/// `portable`. The judge must pass it.
pub fn in_other_words(s: &WorkspaceScenario, o: &WorkspaceObservation) -> WorkspaceObservation {
    let mut out = o.clone();
    out.grading = Grading::Portable;
    for (call, r) in s.calls.iter().zip(out.results.iter_mut()) {
        if let CallResult::Returned(r) = r {
            r.content = if call.tool == Tool::Read && !r.is_error {
                text(&format!(
                    "[a notice]\n{}\n[another]",
                    r.content.0.to_string_lossy()
                ))
            } else {
                text("in the tool's own words")
            };
        }
    }
    out
}

/// The edits judged on the portable projection, of `own` (the
/// observation [`in_other_words`]): each outcome flipped, each result
/// thrown, an allowed read of more than one unit answering another text, a
/// transient file outside the root, entries of the tree removed (as
/// [`exact`]).
pub fn portable(s: &WorkspaceScenario, o: &WorkspaceObservation, removals: usize) -> Vec<Edit> {
    let own = in_other_words(s, o);
    let mut out = Vec::new();
    for (i, r) in own.results.iter().enumerate() {
        let CallResult::Returned(r) = r else { continue };
        let edited = |result: CallResult| {
            let mut e = own.clone();
            if let Some(slot) = e.results.get_mut(i) {
                *slot = result;
            }
            e
        };
        out.push((
            format!("result {i}: outcome flipped"),
            edited(CallResult::Returned(Returned {
                is_error: !r.is_error,
                ..r.clone()
            })),
        ));
        out.push((
            format!("result {i}: thrown"),
            edited(CallResult::Thrown(Thrown {
                thrown: r.content.clone(),
            })),
        ));
        let read = o.results.get(i).map(CallResult::text);
        let is_read = s.calls.get(i).is_some_and(|c| c.tool == Tool::Read);
        if is_read && !r.is_error && read.is_some_and(|t| t.len_units() > 1) {
            out.push((
                format!("result {i}: another text"),
                edited(CallResult::ok("another file's text")),
            ));
        }
    }
    let mut outside = own.clone();
    outside.outside.push("rename $BASE/ws.1a2b.tmp".into());
    out.push(("a transient file outside".into(), outside));
    out.extend(removed_entries(&own, removals));
    out
}

/// `o` without one entry of its tree, for every entry, or for `most` of
/// them spread evenly: each edit is a whole observation, and a write
/// through a path thousands of directories deep leaves a tree of thousands
/// of entries (every edit at once took 3 GB on one fuzz input).
fn removed_entries(o: &WorkspaceObservation, most: usize) -> Vec<Edit> {
    let n = o.tree.len();
    let step = n.div_ceil(most.max(1)).max(1);
    (0..n)
        .step_by(step)
        .map(|i| {
            let mut gone = o.clone();
            gone.tree.remove(i);
            (format!("tree {i}: removed"), gone)
        })
        .collect()
}
