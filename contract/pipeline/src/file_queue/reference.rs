//! The reference of the file queues: the scenario's tree made for real in a
//! temporary root, each operation's key computed as the queue computes it
//! (`path.resolve`, `realpath`, the fallbacks), and the queues' FIFO
//! discipline stepped as the Node harness settles them.
//!
//! The keys, as pi computes them:
//! - coding-agent: `realpath(path.resolve(p))` against `process.cwd()` (the
//!   physical cwd); on `ENOENT`/`ENOTDIR` the resolved path itself; any
//!   other error rejects the caller with Node's error (`code` = errno name);
//! - harness (pi-agent-core 0.85.0, one queue per environment object):
//!   `resolvePath(env.cwd, p)` (a `file://` URL becomes its path), then
//!   `realpath`; on `ENOENT` the resolved path; any other error rejects
//!   with a `FileError` whose code maps the errno (`ENOTDIR` is
//!   `not_directory`, so unlike the coding-agent's queue it rejects).
//!
//! Within one settle, the steps of a chain are ordered as V8 orders them
//! (`file_queue_reference` in `contract/pipeline/tests/pipeline_reference.rs` holds
//! the recorded cases): the released operation's end reaches its caller
//! before the next operation on its key starts.

use super::{
    is_file_queue, ErrorSeen, FileQueue, FileQueueObservation, FileQueueScenario, Happened, Step,
    CODING_AGENT, HARNESS_PREFIX, ROOT_VARIABLE,
};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io;
use std::path::Path;
use toolgate_suite::fs_tree::{canonical_text, node_resolve, Base, Errno};
use toolgate_suite::Error;

/// Which queue instance an operation went through.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum QueueId {
    CodingAgent,
    /// The harness queue of the named environment.
    Harness(String),
}

impl QueueId {
    /// `codingAgent` or `harness:<env>`; `None` for another spelling.
    pub fn parse(spelling: &str) -> Option<QueueId> {
        if spelling == CODING_AGENT {
            return Some(QueueId::CodingAgent);
        }
        let env = spelling.strip_prefix(HARNESS_PREFIX)?;
        (!env.is_empty()).then(|| QueueId::Harness(env.to_owned()))
    }
}

/// How an operation's key came about, for the judge's attribution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyOrigin {
    /// `realpath` answered.
    Canonical,
    /// `realpath` failed on a missing path (or, coding-agent, a path
    /// through a non-directory): the resolved path is the key.
    Fallback,
    /// The key computation rejected the caller.
    Failed,
}

/// One operation as the reference saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpInfo {
    pub queue: QueueId,
    /// Its key (the failing path's resolved spelling when it failed).
    pub key: String,
    pub origin: KeyOrigin,
    /// Released with `throw`.
    pub throws: bool,
}

/// The reference's observation and what it knew about each operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub observation: FileQueueObservation,
    pub ops: BTreeMap<String, OpInfo>,
}

/// The observation of `scenario` on the real filesystem.
pub fn observe(scenario: &FileQueueScenario) -> Result<FileQueueObservation, Error> {
    run(scenario).map(|r| r.observation)
}

/// Whether the scenario is one the reference runs: queues and envs named,
/// each op registered once before it is released, released at most once,
/// no path spelling outside the model.
pub fn check(scenario: &FileQueueScenario) -> Result<(), Error> {
    let q = &scenario.file_queue;
    let mut registered = BTreeSet::new();
    let mut released = BTreeSet::new();
    for (index, step) in q.steps.iter().enumerate() {
        let at = |what: String| Error::scenario(format!("fileQueue step {index}: {what}"));
        match step {
            Step::Register(r) => {
                let queue = QueueId::parse(&r.queue)
                    .ok_or_else(|| at(format!("unknown queue {:?}", r.queue)))?;
                if let QueueId::Harness(env) = &queue {
                    if !q.envs.contains_key(env) {
                        return Err(at(format!("queue {:?} names no env", r.queue)));
                    }
                }
                if r.register.is_empty() || !registered.insert(r.register.as_str()) {
                    return Err(at(format!("op id {:?} is empty or repeated", r.register)));
                }
                if r.path.starts_with('~') {
                    return Err(at(
                        "paths starting with ~ (the home directory) are not modelled".into(),
                    ));
                }
                if queue != QueueId::CodingAgent {
                    // a root's spelling is plain (mkdtemp under the temp dir)
                    file_url_supported(&r.path.replace(ROOT_VARIABLE, "/root")).map_err(at)?;
                }
            }
            Step::Release(r) => {
                if !registered.contains(r.release.as_str()) {
                    return Err(at(format!(
                        "release of {:?} before its register",
                        r.release
                    )));
                }
                if !released.insert(r.release.as_str()) {
                    return Err(at(format!("{:?} is released twice", r.release)));
                }
            }
            Step::Make(m) => relative(&m.make.path).map_err(at)?,
            Step::Remove(r) => relative(&r.remove).map_err(at)?,
        }
    }
    for entry in &q.tree {
        relative(&entry.path).map_err(|e| Error::scenario(format!("fileQueue tree: {e}")))?;
    }
    if let Some(name) = q.envs.keys().find(|name| !plain_name(name)) {
        return Err(Error::scenario(format!(
            "fileQueue: env name {name:?} is not [A-Za-z0-9_-]+"
        )));
    }
    // the cwd and every env's stay inside the root (the root itself: "")
    for cwd in std::iter::once(&q.cwd).chain(q.envs.values()) {
        if !cwd.is_empty() {
            relative(cwd).map_err(|e| Error::scenario(format!("fileQueue cwd: {e}")))?;
        }
    }
    if let Some(op) = registered.iter().find(|op| !plain_name(op)) {
        return Err(Error::scenario(format!(
            "fileQueue: op id {op:?} is not [A-Za-z0-9_-]+"
        )));
    }
    Ok(())
}

/// Op ids and env names: `[A-Za-z0-9_-]+`, as the schema says.
fn plain_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The reference's run: the observation and the operations' keys.
pub fn run(scenario: &FileQueueScenario) -> Result<Run, Error> {
    check(scenario)?;
    let q = &scenario.file_queue;
    let base = Base::new("toolgate-fq-")?;
    let root_text = base.path().to_owned();
    let mut world = World {
        base: &base,
        root: root_text.clone(),
        cwd: String::new(),
        envs: BTreeMap::new(),
        queues: BTreeMap::new(),
        ops: BTreeMap::new(),
        states: BTreeMap::new(),
        happened: Vec::new(),
    };
    for entry in &q.tree {
        world
            .make(entry)
            .map_err(|e| Error::scenario(format!("fileQueue tree {:?}: {e}", entry.path)))?;
    }
    // process.cwd() after chdir is getcwd(): the physical directory
    let cwd = node_resolve(&root_text, &q.cwd);
    world.cwd = canonical_text(&cwd)
        .map_err(|e| Error::scenario(format!("fileQueue cwd {:?}: {e}", q.cwd)))?;
    for (name, cwd) in &q.envs {
        // NodeExecutionEnv keeps its cwd as given: path.join(root, cwd)
        world
            .envs
            .insert(name.clone(), node_resolve(&root_text, cwd));
    }
    for (index, step) in q.steps.iter().enumerate() {
        let step_no = u32::try_from(index).unwrap_or(u32::MAX);
        world.step(step_no, step, q)?;
    }
    Ok(Run {
        observation: FileQueueObservation {
            file_queue: world.happened,
        },
        ops: world.ops,
    })
}

/// Whether `json` is a file-queue scenario the reference can decode.
pub fn decode(json: &serde_json::Value) -> Result<FileQueueScenario, Error> {
    debug_assert!(is_file_queue(json));
    serde_json::from_value(json.clone())
        .map_err(|e| Error::scenario(format!("fileQueue scenario: {e}")))
}

/// Where an operation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Waiting,
    Running,
    Ended,
}

struct World<'b> {
    base: &'b Base,
    root: String,
    cwd: String,
    envs: BTreeMap<String, String>,
    /// Each queue instance's keys, each with its operations in FIFO order;
    /// the front one runs.
    queues: BTreeMap<(QueueId, String), VecDeque<String>>,
    ops: BTreeMap<String, OpInfo>,
    states: BTreeMap<String, (State, Option<bool>)>,
    happened: Vec<Happened>,
}

impl World<'_> {
    fn step(&mut self, step: u32, s: &Step, q: &FileQueue) -> Result<(), Error> {
        let fail = |what: String| Error::scenario(format!("fileQueue step {step}: {what}"));
        match s {
            Step::Register(r) => {
                let queue = QueueId::parse(&r.queue).ok_or_else(|| fail(r.queue.clone()))?;
                let path = r.path.replace(ROOT_VARIABLE, &self.root);
                let (key, origin, error) = match &queue {
                    QueueId::CodingAgent => coding_agent_key(&self.cwd, &path)?,
                    QueueId::Harness(env) => {
                        let cwd = self.envs.get(env).ok_or_else(|| fail(env.clone()))?;
                        harness_key(cwd, &path)?
                    }
                };
                self.ops.insert(
                    r.register.clone(),
                    OpInfo {
                        queue: queue.clone(),
                        key: key.clone(),
                        origin,
                        throws: throws(q, &r.register),
                    },
                );
                if let Some(error) = error {
                    self.states.insert(r.register.clone(), (State::Ended, None));
                    self.happened
                        .push(Happened::reject(step, &r.register, error));
                    return Ok(());
                }
                self.states
                    .insert(r.register.clone(), (State::Waiting, None));
                let line = self.queues.entry((queue, key)).or_default();
                line.push_back(r.register.clone());
                if line.len() == 1 {
                    self.run_front(step, &r.register);
                }
            }
            Step::Release(r) => {
                let Some((state, released)) = self.states.get_mut(&r.release) else {
                    return Err(fail(format!("{:?} is not registered", r.release)));
                };
                *released = Some(r.throw);
                if *state == State::Running {
                    self.end_and_go_on(step, &r.release);
                }
            }
            Step::Make(m) => self
                .make(&m.make)
                .map_err(|e| fail(format!("make {:?}: {e}", m.make.path)))?,
            Step::Remove(r) => {
                let path = Path::new(&self.root).join(&r.remove);
                let gone = match std::fs::symlink_metadata(&path) {
                    Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(&path),
                    Ok(_) => std::fs::remove_file(&path),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
                    Err(e) => Err(e),
                };
                gone.map_err(|e| fail(format!("remove {:?}: {e}", r.remove)))?;
            }
        }
        Ok(())
    }

    /// `op` (the front of its line) starts; if already released it ends at
    /// once and the next one starts, and so on.
    fn run_front(&mut self, step: u32, op: &str) {
        self.happened.push(Happened::start(step, op));
        let Some(entry) = self.states.get_mut(op) else {
            return;
        };
        entry.0 = State::Running;
        if entry.1.is_some() {
            self.end_and_go_on(step, op);
        }
    }

    /// The running `op` ends (its caller sees it first), then the next
    /// operation on its key starts.
    fn end_and_go_on(&mut self, step: u32, op: &str) {
        let Some(entry) = self.states.get_mut(op) else {
            return;
        };
        let throw = entry.1 == Some(true);
        entry.0 = State::Ended;
        self.happened.push(if throw {
            Happened::reject(
                step,
                op,
                ErrorSeen {
                    name: "Error".into(),
                    code: None,
                    message: Some(format!("{op} failed")),
                },
            )
        } else {
            Happened::resolve(step, op)
        });
        let Some(info) = self.ops.get(op) else {
            return;
        };
        let line_id = (info.queue.clone(), info.key.clone());
        let next = self.queues.get_mut(&line_id).and_then(|line| {
            line.pop_front();
            line.front().cloned()
        });
        match next {
            Some(next) => self.run_front(step, &next),
            // the queue deletes a key whose last operation ended
            None => {
                self.queues.remove(&line_id);
            }
        }
    }

    fn make(&self, entry: &super::Entry) -> io::Result<()> {
        self.base.make(entry, ROOT_VARIABLE)
    }
}

/// Whether release steps of `op` throw.
fn throws(q: &FileQueue, op: &str) -> bool {
    q.steps
        .iter()
        .any(|s| matches!(s, Step::Release(r) if r.release == op && r.throw))
}

fn relative(path: &str) -> Result<(), String> {
    if path.is_empty() || path.starts_with('/') || path.split('/').any(|c| c == "..") {
        return Err(format!(
            "{path:?}: tree paths are relative to the root and stay in it"
        ));
    }
    Ok(())
}

type Key = (String, KeyOrigin, Option<ErrorSeen>);

/// The coding-agent's `getMutationQueueKey`.
fn coding_agent_key(cwd: &str, path: &str) -> Result<Key, Error> {
    let resolved = node_resolve(cwd, path);
    Ok(match canonical_text(&resolved) {
        Ok(real) => (real, KeyOrigin::Canonical, None),
        Err(e) => match Errno::named(&e, "realpath")?.name {
            "ENOENT" | "ENOTDIR" => (resolved, KeyOrigin::Fallback, None),
            code => {
                let error = ErrorSeen {
                    name: "Error".into(),
                    code: Some(code.into()),
                    message: None,
                };
                (resolved, KeyOrigin::Failed, Some(error))
            }
        },
    })
}

/// The harness queue's `getMutationQueueKey` over `NodeExecutionEnv`.
fn harness_key(env_cwd: &str, path: &str) -> Result<Key, Error> {
    let resolved = node_resolve(env_cwd, &file_url_path(path).unwrap_or_else(|| path.into()));
    Ok(match canonical_text(&resolved) {
        Ok(real) => (real, KeyOrigin::Canonical, None),
        Err(e) => match Errno::named(&e, "realpath")?.name {
            "ENOENT" => (resolved, KeyOrigin::Fallback, None),
            errno => {
                // toFileError's mapping; anything else is "unknown"
                let code = match errno {
                    "EACCES" | "EPERM" => "permission_denied",
                    "ENOTDIR" => "not_directory",
                    "EISDIR" => "is_directory",
                    "EINVAL" => "invalid",
                    _ => "unknown",
                };
                let error = ErrorSeen {
                    name: "FileError".into(),
                    code: Some(code.into()),
                    message: None,
                };
                (resolved, KeyOrigin::Failed, Some(error))
            }
        },
    })
}

/// `fileURLToPath(p)` for `file://` spellings the model supports; `None`
/// when `p` is not a file URL or `fileURLToPath` throws on it (a host), in
/// which case the harness keeps `p` as an ordinary path.
fn file_url_path(p: &str) -> Option<String> {
    let rest = p.strip_prefix("file://")?;
    let (host, path) = match rest.find('/') {
        Some(slash) => rest.split_at(slash),
        None => (rest, "/"),
    };
    let local = host.is_empty() || host.eq_ignore_ascii_case("localhost");
    local.then(|| path.to_owned())
}

/// Refuses `file://` spellings whose parsing the model does not follow.
fn file_url_supported(p: &str) -> Result<(), String> {
    let Some(rest) = p.strip_prefix("file://") else {
        return Ok(());
    };
    let host = rest.split('/').next().unwrap_or_default();
    let plain_host = host
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
    if rest.contains(['%', '?', '#', '\\', '\t', '\n', '\r']) || !plain_host {
        return Err(format!(
            "{p:?}: file URLs with %, ?, #, \\, control characters or a host other than a plain name are not modelled"
        ));
    }
    Ok(())
}
