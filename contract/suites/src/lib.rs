//! Every suite of toolgate, in one list: the runner, the corpus's lint and
//! replay, and the reference adapter go through it. No suite imports it,
//! so a suite builds without the others.

use toolgate_suite::SuiteDef;

/// Every suite, in the order the runner lists and runs them.
pub fn all() -> Vec<&'static dyn SuiteDef> {
    vec![
        &toolgate_core::CORE,
        &toolgate_boundary::BOUNDARY,
        &toolgate_pipeline::PIPELINE,
        &toolgate_workspace::WORKSPACE,
        &toolgate_actions::ACTIONS,
    ]
}

/// The suite with id `id`.
pub fn get(id: &str) -> Option<&'static dyn SuiteDef> {
    all().into_iter().find(|s| s.id() == id)
}

/// The suite whose requirement ids start with its prefix, for a requirement
/// id read from a baseline or a report.
pub fn of_requirement(requirement: &str) -> Option<&'static dyn SuiteDef> {
    all()
        .into_iter()
        .find(|s| requirement.starts_with(s.requirement_prefix()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_suite_is_listed_with_its_prefix() {
        let ids: Vec<&str> = all().iter().map(|s| s.id()).collect();
        assert_eq!(
            ids,
            ["core", "boundary", "pipeline", "workspace", "actions"]
        );
        for (requirement, suite) in [
            ("BOUNDARY-05", "boundary"),
            ("CORE-SER-07", "core"),
            ("PIPE-HOOK-01", "pipeline"),
            ("WS-PATH-03", "workspace"),
            ("ACT-AUTH-02", "actions"),
        ] {
            assert_eq!(
                of_requirement(requirement).map(|s| s.id()),
                Some(suite),
                "{requirement}"
            );
        }
        assert!(of_requirement("ACTION-01").is_none());
        assert_eq!(
            get("core").map(|s| format!("{s:?}")).as_deref(),
            Some("SuiteDef(core)")
        );
    }
}
