//! Observations in words for violation messages, and the readable diff
//! used when no predicate names a difference.

use super::*;

/// The fallbacks of the failure-message rule (CORE-RES-03).
pub(super) fn is_fallback(message: &str) -> bool {
    [
        fixed::VALIDATION_FAILED,
        fixed::EXECUTION_FAILED,
        fixed::SERIALIZATION_FAILED,
        fixed::VALIDATION_NOT_SYNC,
    ]
    .contains(&message)
}

pub(super) const OWN_OK: &str = "Expected own property ok";
pub(super) const OWN_VALUE: &str = "Expected own property value";
pub(super) const OWN_ERROR: &str = "Expected own property error";

pub(super) fn fixed_validation_message(m: &str) -> bool {
    [
        fixed::VALIDATION_FAILED,
        fixed::VALIDATION_NOT_SYNC,
        fixed::DECISION_NOT_OBJECT,
        fixed::DECISION_OK_NOT_BOOLEAN,
        fixed::DECISION_REJECT_WITHOUT_ERROR,
        fixed::DECISION_INVALID,
        OWN_OK,
        OWN_VALUE,
        OWN_ERROR,
    ]
    .contains(&m)
}

pub(super) fn registered(r: &Registered) -> String {
    match r {
        Registered::Ok => "ok".to_string(),
        Registered::ContractError(c) => format!("contract error {c}"),
        Registered::Rejected(what) => format!("rejected with {}", clip(&what.to_string())),
    }
}

pub(super) fn reason(r: &ReasonObserved) -> String {
    match &r.reason {
        None => "AbortError".to_string(),
        Some(j) => clip(&j.to_string()),
    }
}

/// An outcome in words.
pub(super) fn describe(o: &Outcome) -> String {
    match o {
        Outcome::Result(r) if r.is_error => match error_payload(&r.content) {
            Some(p) => format!("result {}", p.code),
            None => "an error result".to_string(),
        },
        Outcome::Result(_) => "a success result".to_string(),
        Outcome::Cancelled(r) => format!("cancelled with reason {}", reason(r)),
        Outcome::ContractError(c) => format!("contract error {c}"),
        Outcome::NonRecoverable(n) => format!("rejected with the non-recoverable error `{n}`"),
        Outcome::Pending => "a pending call".to_string(),
        Outcome::Rejected(what) => format!("rejected with {}", clip(&what.to_string())),
    }
}

/// An outcome in one word or code, for "ran after ...".
pub(super) fn short(o: &Outcome) -> String {
    match o {
        Outcome::Result(r) if r.is_error => {
            error_payload(&r.content).map_or_else(|| "an error result".to_string(), |p| p.code)
        }
        Outcome::Result(_) => "success".to_string(),
        Outcome::Cancelled(_) => "cancellation".to_string(),
        Outcome::ContractError(c) => c.to_string(),
        Outcome::NonRecoverable(_) => "a non-recoverable error".to_string(),
        Outcome::Pending => "pending".to_string(),
        Outcome::Rejected(_) => "a rejection".to_string(),
    }
}

/// A readable diff of two values as pretty JSON: the differing lines with
/// two lines of context, `-` expected and `+` actual.
pub(super) fn diff<T: Serialize + ?Sized>(what: &str, e: &T, a: &T) -> Violation {
    const CONTEXT: usize = 2;
    const MAX_LINES: usize = 40;
    let pretty = |v: &T| serde_json::to_string_pretty(v).unwrap_or_default();
    let (et, at) = (pretty(e), pretty(a));
    let (el, al): (Vec<&str>, Vec<&str>) = (et.lines().collect(), at.lines().collect());
    let head = el.iter().zip(&al).take_while(|(x, y)| x == y).count();
    let tail = el
        .iter()
        .skip(head)
        .rev()
        .zip(al.iter().skip(head).rev())
        .take_while(|(x, y)| x == y)
        .count();
    let mut text = format!("{what}:\n");
    let context_start = head.saturating_sub(CONTEXT);
    for l in el.iter().skip(context_start).take(head - context_start) {
        text.push_str(&format!("    {l}\n"));
    }
    let section = |lines: &[&str], sign: char, text: &mut String| {
        let changed = lines.len().saturating_sub(head + tail);
        for l in lines.iter().skip(head).take(changed.min(MAX_LINES)) {
            text.push_str(&format!("  {sign} {l}\n"));
        }
        if changed > MAX_LINES {
            text.push_str(&format!(
                "  {sign} … {} more line(s)\n",
                changed - MAX_LINES
            ));
        }
    };
    section(&el, '-', &mut text);
    section(&al, '+', &mut text);
    let after = el.len().saturating_sub(tail);
    for l in el.iter().skip(after).take(CONTEXT) {
        text.push_str(&format!("    {l}\n"));
    }
    Violation::unnamed(text.trim_end().to_string())
}
