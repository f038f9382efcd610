//! What a turn that did not complete is charged to: read from what was
//! observed (which bodies started, how each had settled when the turn
//! ended, whether the signal had aborted, what the rejection says), never
//! from what the case merely contains. SPEC.md's `## boundary`, "How a
//! violation is attributed", says the same in words.
//!
//! A rejected turn lost the result of every call. It is charged to what
//! caused it: a call whose failure the rejection followed (an unknown tool,
//! refused arguments, huge arguments, a body that threw, a hostile output
//! once its body returned, a body that never settles), each by the
//! requirement that promised that call a result, and `TURN-01` when a
//! failure rejected the whole turn. So a runtime that never produces an
//! error result is failed on `UNK-01`, `VAL-01` and `ERR-01`, not only on
//! `TURN-01`. The abort excuses a rejection only when the abort came first
//! and the rejection carries it.

use super::judge::{huge_arguments, Call, Kind};
use super::requirements as req;
use super::spec::*;
use toolgate_suite::Violation;

/// Where a call's body stood when the turn ended, as far as the
/// observation tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Body {
    NotStarted,
    /// Started; the adapter says how it had settled.
    Started(Settled),
    /// Started (or a start of its tool cannot be told apart from another
    /// call's); the adapter does not say how it settled.
    StartedUnknown,
}

fn body(call: &Call<'_>, actual: &BoundaryObservation) -> Body {
    let id = call.spec.id.as_str();
    let starts: Vec<&RanSeen> = actual
        .ran
        .iter()
        .filter(|r| Some(r.tool) == call.tool)
        .filter(|r| match &r.call_id {
            Some(c) => c == id,
            // without call ids, a start is this call's only when no other
            // call names the tool; otherwise it may be this call's
            None => true,
        })
        .collect();
    if starts.is_empty() {
        return Body::NotStarted;
    }
    let own = call.alone || starts.iter().all(|r| r.call_id.is_some());
    if !own {
        return Body::StartedUnknown;
    }
    let mut seen = None;
    for r in &starts {
        match r.settled {
            None => return Body::StartedUnknown,
            Some(Settled::Rejected) => return Body::Started(Settled::Rejected),
            Some(Settled::Fulfilled) => seen = Some(Settled::Fulfilled),
            Some(Settled::Pending) => seen = seen.or(Some(Settled::Pending)),
        }
    }
    seen.map_or(Body::StartedUnknown, Body::Started)
}

/// Whether the adapter's abort happened: its latch fires only once the
/// named call's body started (`whilePending`) or settled (`afterSettled`).
pub(super) fn abort_fired(
    scenario: &BoundaryScenario,
    calls: &[Call<'_>],
    actual: &BoundaryObservation,
) -> bool {
    let named = |id: &str| calls.iter().find(|c| c.spec.id == id);
    match &scenario.abort {
        None => false,
        Some(AbortTiming::Before {}) => true,
        Some(AbortTiming::WhilePending(id)) => {
            named(id).is_some_and(|c| body(c, actual) != Body::NotStarted)
        }
        Some(AbortTiming::AfterSettled(id)) => named(id).is_some_and(|c| {
            !matches!(
                body(c, actual),
                Body::NotStarted | Body::Started(Settled::Pending)
            )
        }),
    }
}

/// Whether a rejection's name or message says it is a cancellation.
fn says_abort(name: &str, message: &str) -> bool {
    let text = format!("{name} {message}").to_lowercase();
    ["abort", "cancel"].iter().any(|w| text.contains(w))
}

/// Whether `word` occurs in `text` with no letter, digit or `_` right
/// before or after it ("no", a thrown message, is not in "unknown").
fn contains_word(text: &str, word: &str) -> bool {
    let joins = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let first = word.chars().next();
    let last = word.chars().last();
    text.match_indices(word).any(|(at, _)| {
        let before = text.get(..at).and_then(|t| t.chars().last());
        let after = text.get(at + word.len()..).and_then(|t| t.chars().next());
        // a word that itself begins or ends with a separator needs none
        (!joins(first) || !joins(before)) && (!joins(last) || !joins(after))
    })
}

/// How a rejected turn is judged.
pub(super) enum Rejection {
    /// The abort caused it: judged as an aborted turn (what it kept, what
    /// it lost by `CAN-03`).
    ByTheAbort,
    /// Charged: the violations are pushed.
    Charged,
}

/// A call that may have caused the turn to reject or hang, with the
/// requirement that promised it a result.
#[derive(Clone, Copy)]
struct Cause<'a> {
    call: &'a Call<'a>,
    requirement: &'static str,
    what: &'static str,
    /// A failure of the call itself (`TURN-01` promises it never rejects
    /// the turn), not a hostile output or a stuck body, whose own
    /// requirements say the turn must go on.
    failure: bool,
    /// Its arguments, or the output its body returned, are of a huge size
    /// (what a host's stack or string limit gives out on).
    huge: bool,
}

/// Whether a rejection's text is a host's limit giving out.
fn says_limit(text: &str) -> bool {
    [
        "Maximum call stack",
        "RangeError",
        "RecursionError",
        "recursion depth",
        "Invalid string length",
        "MemoryError",
        "out of memory",
        "serialization depth",
        // Rust's: a thread's stack overflowed, an allocation failed (the
        // Rust harness puts a crashed process's last words in the rejection)
        "overflowed its stack",
        "memory allocation of",
    ]
    .iter()
    .any(|w| text.contains(w))
}

/// The calls whose failure a rejection may have followed, in turn order.
fn rejection_candidates<'a>(
    calls: &'a [Call<'a>],
    has_abort: bool,
    actual: &BoundaryObservation,
) -> Vec<Cause<'a>> {
    let mut out = Vec::new();
    for call in calls {
        let b = body(call, actual);
        let huge = huge_arguments(&call.spec.arguments)
            || (call.kind == Kind::Hostile && call.huge_output);
        let cause = |requirement, what, failure| Cause {
            call,
            requirement,
            what,
            failure,
            huge,
        };
        let hanging =
            call.may_hang && matches!(b, Body::Started(Settled::Pending) | Body::StartedUnknown);
        let found = match call.kind {
            Kind::Unknown => Some(cause(req::UNK_01, "an unknown tool", true)),
            Kind::Invalid => Some(cause(req::VAL_01, "refused arguments", true)),
            Kind::Fails if matches!(b, Body::Started(Settled::Rejected) | Body::StartedUnknown) => {
                Some(cause(req::ERR_01, "a tool that threw or rejected", true))
            }
            Kind::Hostile
                if matches!(b, Body::Started(Settled::Fulfilled) | Body::StartedUnknown) =>
            {
                Some(cause(req::OUT_01, "a hostile output", false))
            }
            Kind::Works(_) if huge_arguments(&call.spec.arguments) => {
                Some(cause(req::TURN_01, "huge arguments", true))
            }
            _ if hanging && !has_abort => Some(cause(
                req::TIME_01,
                "a tool that never settles (the runtime's own timeout rejected the turn)",
                false,
            )),
            _ => None,
        };
        out.extend(found);
    }
    out
}

/// Charges a rejected turn (see the module's documentation).
#[allow(clippy::too_many_arguments)]
pub(super) fn rejected(
    scenario: &BoundaryScenario,
    calls: &[Call<'_>],
    actual: &BoundaryObservation,
    name: &str,
    message: &str,
    after_abort: Option<bool>,
    carries_abort: Option<bool>,
    out: &mut Vec<Violation>,
) -> Rejection {
    let has_abort = scenario.abort.is_some();
    // the abort came first: it fired, and the adapter saw the signal
    // aborted when the turn rejected (or does not say)
    let abort_first =
        has_abort && abort_fired(scenario, calls, actual) && after_abort != Some(false);
    let carries = carries_abort == Some(true) || says_abort(name, message);
    if abort_first && carries {
        return Rejection::ByTheAbort;
    }
    let candidates = rejection_candidates(calls, has_abort, actual);
    // the rejection's text names a candidate (the unknown name, the thrown
    // message, the check's message): that one, else every candidate
    let text = format!("{name}: {message}");
    let named: Vec<&Cause<'_>> = candidates
        .iter()
        .filter(|c| c.call.signatures.iter().any(|s| contains_word(&text, s)))
        .collect();
    // else a host's limit (a stack overflow, a string too long) is the
    // huge value's: huge arguments, or a huge output its body returned
    // (huge arguments as such, whatever else their call is: a refused or
    // unknown call's arguments too large for the host are not its refusal)
    let huge: Vec<Cause<'_>> = candidates
        .iter()
        .filter(|c| c.huge)
        .map(|c| {
            if huge_arguments(&c.call.spec.arguments) {
                Cause {
                    requirement: req::TURN_01,
                    what: "huge arguments",
                    failure: true,
                    ..*c
                }
            } else {
                *c
            }
        })
        .collect();
    let causes: Vec<&Cause<'_>> = if !named.is_empty() {
        named
    } else if says_limit(&text) && !huge.is_empty() {
        huge.iter().collect()
    } else {
        candidates.iter().collect()
    };
    if causes.is_empty() {
        if abort_first {
            // nothing but the abort came before it
            return Rejection::ByTheAbort;
        }
        out.push(Violation::named(
            req::RUN_01,
            format!("the turn rejected though no call failed: {text}"),
        ));
        return Rejection::Charged;
    }
    let mut charged: Vec<&str> = Vec::new();
    for cause in &causes {
        if cause.requirement != req::TURN_01 && !charged.contains(&cause.requirement) {
            charged.push(cause.requirement);
            out.push(Violation::named(
                cause.requirement,
                format!(
                    "call {} ({}): the turn rejected instead of giving it a result: {text}",
                    cause.call.spec.id, cause.what
                ),
            ));
        }
    }
    let failures: Vec<String> = causes
        .iter()
        .filter(|c| c.failure)
        .map(|c| format!("{} ({})", c.call.spec.id, c.what))
        .collect();
    if !failures.is_empty() {
        out.push(Violation::named(
            req::TURN_01,
            format!(
                "the failure of call {} rejected the whole turn: {text}",
                failures.join(" or ")
            ),
        ));
    }
    Rejection::Charged
}

/// Charges a turn still unsettled after the adapter's windows (its first
/// and its patient second run) to the first thing observed to hold it: the
/// abort that did not end it (`CAN-02`), a body that never settled
/// (`TIME-01`), huge arguments whose body never ran (`ARGS-01`, and
/// `LINK-01`: a turn that never answers, when no body of the case is
/// stuck), a hostile output its body returned or is returning (`OUT-01`),
/// a body that threw (`ERR-01`), huge arguments whose body ran; else the
/// turn itself (`LINK-01`).
pub(super) fn pending(
    scenario: &BoundaryScenario,
    calls: &[Call<'_>],
    actual: &BoundaryObservation,
) -> Vec<Violation> {
    if abort_fired(scenario, calls, actual) {
        return vec![Violation::named(
            req::CAN_02,
            "the turn did not end after the abort",
        )];
    }
    let running = |c: &&Call<'_>| {
        matches!(
            body(c, actual),
            Body::Started(Settled::Pending) | Body::StartedUnknown
        )
    };
    if let Some(call) = calls.iter().filter(running).find(|c| c.may_hang) {
        return vec![Violation::named(
            req::TIME_01,
            format!(
                "call {}: a tool that never settles was not timed out: the turn never ended",
                call.spec.id
            ),
        )];
    }
    let huge = |c: &&Call<'_>| huge_arguments(&c.spec.arguments);
    // ARGS-01 alone: four windows cannot tell a parse of 10^6 keys that
    // takes 20 s on a busy machine from one that never ends
    let hung_on_arguments = |call: &Call<'_>| {
        vec![Violation::named(
            req::ARGS_01,
            format!(
                "call {}: huge arguments left the turn hanging",
                call.spec.id
            ),
        )]
    };
    let unrun = calls
        .iter()
        .filter(huge)
        .find(|c| body(c, actual) == Body::NotStarted);
    if let Some(call) = unrun {
        return hung_on_arguments(call);
    }
    // a hostile body that started: it returned its value, or is still
    // building it (a body that settles on its own and has not, on a busy
    // machine: the value is the case's doing, the turn's wait the runtime's)
    let hostile = calls
        .iter()
        .find(|c| c.kind == Kind::Hostile && body(c, actual) != Body::NotStarted);
    if let Some(call) = hostile {
        return vec![Violation::named(
            req::OUT_01,
            format!(
                "call {}: its body returned a hostile output and the turn never ended",
                call.spec.id
            ),
        )];
    }
    // a body that threw and was never answered: its failure never became
    // a result the model can read (a runtime whose spawned handler dies
    // with the tool's panic, rmcp's); `LINK-01` alone would hide it
    let threw = calls
        .iter()
        .find(|c| c.kind == Kind::Fails && body(c, actual) == Body::Started(Settled::Rejected));
    if let Some(call) = threw {
        return vec![Violation::named(
            req::ERR_01,
            format!(
                "call {}: its body threw and the turn never ended: no result reached the model",
                call.spec.id
            ),
        )];
    }
    if let Some(call) = calls.iter().find(huge) {
        return hung_on_arguments(call);
    }
    vec![Violation::named(req::LINK_01, "the turn never ended")]
}

#[cfg(test)]
mod tests {
    use super::contains_word;

    #[test]
    fn a_word_is_matched_between_separators_only() {
        assert!(contains_word("Error: no", "no"));
        assert!(!contains_word("Unknown tool: ghost", "no"));
        assert!(contains_word("Tool ghost not found", "ghost"));
        assert!(!contains_word("Tool ghosts not found", "ghost"));
        assert!(contains_word(
            "UserError: Error running tool work: disk on fire",
            "disk on fire"
        ));
        assert!(contains_word("Tool read  not found", "read "));
        assert!(!contains_word("Tool read_file not found", "read"));
    }
}
