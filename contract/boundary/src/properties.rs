//! What must hold for every boundary scenario, checked by one function that
//! the fuzz oracle (`fuzzing::boundary`), the property tests
//! (`proptests/tests/boundary.rs`) and the corpus test call alike:
//!
//! - the reference observes it, and its observation meets the suite's
//!   observation schema;
//! - the reference passes its own judge (so the expectations the corpus
//!   stores could never fail a faithful runtime);
//! - the shape every boundary keeps: a refused registration runs nothing;
//!   otherwise, without an abort, the turn completes with exactly one
//!   result per call, in turn order, linked by call id, each within
//!   BOUNDARY-SIZE-01's bound, and no tool starts for a refused or unknown
//!   call;
//! - every observation mutant (`mutants::ALL`) that fits the scenario is
//!   caught by the judge naming one of its requirements (every one, for
//!   the attribution mutants).

use super::judge::{Judge, Kind, RESULT_BYTES_BOUND};
use super::mutants::{self, Subject};
use super::spec::*;
use super::BOUNDARY;
use toolgate_suite::fuzzing::Mutants;
use toolgate_suite::js_string::JsString;

/// What a check covered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Covered {
    /// The mutants that fitted the scenario (each was caught).
    pub mutants: Vec<&'static str>,
}

fn observation_schema() -> Result<&'static jsonschema::Validator, String> {
    toolgate_suite::observation_validator(&BOUNDARY)
}

/// Checks everything above for `scenario`, which must decode; `Err` says
/// what broke (with the scenario, so that it reproduces).
pub fn check(scenario: &BoundaryScenario) -> Result<Covered, String> {
    check_with(scenario, Mutants::Every)
}

/// [`check`], trying the observation mutants `mutants` says (a fast fuzz
/// target tries one).
pub fn check_with(scenario: &BoundaryScenario, mutants: Mutants) -> Result<Covered, String> {
    let show = || serde_json::to_string(scenario).unwrap_or_default();
    let fail = |what: String| Err(format!("{what}\nscenario: {}", show()));
    let judge = match Judge::new(scenario) {
        Ok(judge) => judge,
        Err(e) => return fail(format!("the scenario does not decode: {e}")),
    };
    let kinds = judge.kinds();
    let reference = match super::observe(scenario) {
        Ok(o) => o,
        Err(e) => return fail(format!("the reference cannot observe it: {e}")),
    };
    let json = serde_json::to_value(&reference).map_err(|e| e.to_string())?;
    let schema = observation_schema()?;
    if let Err(e) = toolgate_suite::schema_errors(schema, &json) {
        return fail(format!(
            "the reference's observation breaks the observation schema: {e}\nobservation: {json}"
        ));
    }
    let (violations, _) = judge.judge(&reference, &reference);
    if let Some(v) = violations.first() {
        return fail(format!(
            "the reference fails its own judge: {v}\nobservation: {json}"
        ));
    }
    if let Err(what) = shape(scenario, &kinds, &reference) {
        return fail(format!("{what}\nobservation: {json}"));
    }
    let subject = Subject {
        scenario,
        kinds: &kinds,
        reference: &reference,
    };
    let mut covered = Covered::default();
    mutants.each(mutants::ALL.len(), |i| {
        let Some(mutant) = mutants::ALL.get(i) else {
            return Ok(false);
        };
        let Some(broken) = (mutant.apply)(&subject) else {
            return Ok(false);
        };
        let (violations, _) = judge.judge(&reference, &broken);
        if !mutant.expect.kept_by(&violations) {
            let said: Vec<String> = violations.iter().map(ToString::to_string).collect();
            return Err(format!(
                "the judge missed mutant {} (it must name {:?}); it said: {said:?}\nscenario: {}",
                mutant.name,
                mutant.expect,
                show()
            ));
        }
        covered.mutants.push(mutant.name);
        Ok(true)
    })?;
    Ok(covered)
}

/// The shape of the reference's observation, by the scenario alone.
fn shape(
    scenario: &BoundaryScenario,
    kinds: &[Kind],
    reference: &BoundaryObservation,
) -> Result<(), String> {
    let mut names: Vec<&str> = scenario.tools.iter().map(|t| t.name.as_str()).collect();
    names.sort_unstable();
    let duplicates = names.windows(2).any(|w| w.first() == w.get(1));
    // a blank name (ECMAScript's trim set) is an invalid definition, as the
    // core registers (found by the `boundary_fast` target on 2026-12-05: a
    // JSON scenario with a tool named "")
    let blank = names.iter().any(|n| JsString::new(n).is_blank());
    let refused = duplicates || blank;
    if refused != (reference.registration != Registration::Ok) {
        return Err(format!(
            "repeated names: {duplicates}, blank names: {blank}, but the registration is {:?}",
            reference.registration
        ));
    }
    if refused {
        return match (
            &reference.turn,
            reference.results.is_empty(),
            reference.ran.is_empty(),
        ) {
            (TurnEnd::NotRun, true, true) => Ok(()),
            _ => Err("a refused registration ran the turn".into()),
        };
    }
    for r in &reference.ran {
        let call = scenario
            .turn
            .iter()
            .zip(kinds)
            .find(|(c, _)| r.call_id.as_deref() == Some(c.id.as_str()));
        match call {
            Some((_, Kind::Unknown | Kind::Invalid)) => {
                return Err(format!("a tool started for refused call {:?}", r.call_id))
            }
            Some(_) if !r.after_abort => {}
            _ => return Err(format!("a start {r:?} belongs to no call")),
        }
    }
    for r in &reference.results {
        let bytes = serde_json::to_string(&r.delivered).map_or(0, |t| t.len()) as f64;
        if bytes > RESULT_BYTES_BOUND {
            return Err(format!("a result of {bytes} bytes"));
        }
    }
    if scenario.abort.is_none() {
        let linked: Vec<Option<&str>> = reference
            .results
            .iter()
            .map(|r| r.call_id.as_deref())
            .collect();
        let calls: Vec<Option<&str>> = scenario.turn.iter().map(|c| Some(c.id.as_str())).collect();
        if reference.turn != TurnEnd::Completed || linked != calls {
            return Err(format!(
                "without an abort the turn must complete with one result per call in order: {:?}, results for {linked:?}",
                reference.turn
            ));
        }
    }
    Ok(())
}
