//! JavaScript's promise jobs, exactly enough for pi's loop to interleave
//! as it does in V8: one FIFO queue of jobs; promises whose reactions are
//! queued as jobs when they settle (or at once when `then` is called on a
//! settled one); `await p` resuming its async function in the job of
//! `p`'s reaction; an async function running synchronously to its first
//! `await` when called, and settling its promise when it returns (a
//! returned promise adopted through the two extra jobs of
//! `NewPromiseResolveThenableJob`); `Promise.all` as the specification
//! writes it.
//!
//! Why not tokio: the order in which parallel tool calls emit their
//! events is decided by how many job-queue turns each `await` takes in
//! JavaScript; a Rust executor's polling order has nothing to do with it.
//! Async functions are Rust futures here, but only this queue resumes
//! them, one job at a time; nothing waits on time. When the queue is
//! empty and the run has not settled, it never will (a latch nobody
//! releases): the harness calls that *pending*.

use super::value::{Completion, Thrown};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

type Job = Box<dyn FnOnce()>;
type Task = Pin<Box<dyn Future<Output = ()>>>;

struct Inner {
    jobs: RefCell<VecDeque<Job>>,
    tasks: RefCell<Vec<Option<Task>>>,
    /// The task being polled (an `await` registers it).
    current: Cell<Option<usize>>,
    /// Rejected promises, and whether a handler came.
    rejections: RefCell<Vec<Rc<Cell<bool>>>>,
    jobs_run: Cell<u64>,
}

/// One JavaScript realm's job queue and async functions.
#[derive(Clone)]
pub(crate) struct Realm(Rc<Inner>);

type Reaction<T> = Box<dyn FnOnce(Completion<T>)>;

enum State<T> {
    Pending(Vec<Reaction<T>>),
    Settled(Completion<T>),
}

struct PromiseData<T> {
    state: State<T>,
    /// Set once a reaction is attached (for unhandled rejections).
    handled: Rc<Cell<bool>>,
}

/// A native promise.
pub(crate) struct Promise<T>(Rc<RefCell<PromiseData<T>>>);

impl<T> Clone for Promise<T> {
    fn clone(&self) -> Self {
        Promise(self.0.clone())
    }
}

impl Realm {
    pub(crate) fn new() -> Realm {
        Realm(Rc::new(Inner {
            jobs: RefCell::new(VecDeque::new()),
            tasks: RefCell::new(Vec::new()),
            current: Cell::new(None),
            rejections: RefCell::new(Vec::new()),
            jobs_run: Cell::new(0),
        }))
    }

    pub(crate) fn enqueue(&self, job: impl FnOnce() + 'static) {
        self.0.jobs.borrow_mut().push_back(Box::new(job));
    }

    /// Runs jobs until none is left (or `limit` jobs ran: `false`).
    pub(crate) fn run_until_idle(&self, limit: u64) -> bool {
        loop {
            if self.0.jobs_run.get() >= limit {
                return false;
            }
            let next = self.0.jobs.borrow_mut().pop_front();
            let Some(job) = next else { return true };
            self.0.jobs_run.set(self.0.jobs_run.get() + 1);
            job();
        }
    }

    /// Rejections no handler was ever attached to (Node's
    /// `unhandledRejection`).
    pub(crate) fn unhandled_rejections(&self) -> usize {
        self.0
            .rejections
            .borrow()
            .iter()
            .filter(|h| !h.get())
            .count()
    }

    /// Calls an async function: `body` runs now, up to its first `await`;
    /// the promise settles with what it returns or throws.
    pub(crate) fn spawn<T: Clone + 'static>(
        &self,
        body: impl Future<Output = Completion<T>> + 'static,
    ) -> Promise<T> {
        let promise = Promise::pending();
        let settle = promise.clone();
        let realm = self.clone();
        self.start(async move {
            let completion = body.await;
            settle.settle(&realm, completion);
        });
        promise
    }

    /// Calls an async function that returns another promise (`return
    /// f()` without `await`): its promise adopts that one, two jobs later
    /// than a plain value would settle it.
    pub(crate) fn spawn_adopting<T: Clone + 'static>(
        &self,
        body: impl Future<Output = Completion<Promise<T>>> + 'static,
    ) -> Promise<T> {
        let promise = Promise::pending();
        let outer = promise.clone();
        let realm = self.clone();
        self.start(async move {
            match body.await {
                Ok(inner) => {
                    let job_realm = realm.clone();
                    realm.enqueue(move || {
                        let settle_realm = job_realm.clone();
                        inner.then(&job_realm, move |c| outer.settle(&settle_realm, c));
                    });
                }
                Err(e) => outer.settle(&realm, Err(e)),
            }
        });
        promise
    }

    fn start(&self, task: impl Future<Output = ()> + 'static) {
        let id = {
            let mut tasks = self.0.tasks.borrow_mut();
            tasks.push(Some(Box::pin(task)));
            tasks.len() - 1
        };
        self.resume(id);
    }

    /// Polls task `id` once (it runs to its next `await`).
    fn resume(&self, id: usize) {
        let taken = self.0.tasks.borrow_mut().get_mut(id).and_then(Option::take);
        let Some(mut task) = taken else { return };
        let outer = self.0.current.replace(Some(id));
        let mut cx = Context::from_waker(Waker::noop());
        let done = task.as_mut().poll(&mut cx).is_ready();
        self.0.current.set(outer);
        if !done {
            if let Some(slot) = self.0.tasks.borrow_mut().get_mut(id) {
                *slot = Some(task);
            }
        }
    }

    /// `await promise`.
    pub(crate) fn wait<T: Clone + 'static>(&self, promise: &Promise<T>) -> Await<T> {
        Await {
            realm: self.clone(),
            promise: Some(promise.clone()),
            slot: Rc::new(RefCell::new(None)),
        }
    }

    /// `await value` for a value that is not a promise: one job.
    pub(crate) fn tick(&self) -> Await<()> {
        self.wait(&Promise::resolved(Ok(())))
    }

    /// `Promise.all(promises)`.
    pub(crate) fn all<T: Clone + 'static>(&self, promises: Vec<Promise<T>>) -> Promise<Vec<T>> {
        let out = Promise::pending();
        let values: Rc<RefCell<Vec<Option<T>>>> = Rc::new(RefCell::new(vec![None; promises.len()]));
        // the specification's remainingElementsCount starts at 1
        let remaining = Rc::new(Cell::new(1usize));
        let finish = {
            let out = out.clone();
            let values = values.clone();
            let realm = self.clone();
            move || {
                let collected: Vec<T> = values.borrow_mut().drain(..).flatten().collect();
                out.settle(&realm, Ok(collected));
            }
        };
        let finish = Rc::new(finish);
        for (i, p) in promises.into_iter().enumerate() {
            remaining.set(remaining.get() + 1);
            let (out, values, remaining, finish, realm) = (
                out.clone(),
                values.clone(),
                remaining.clone(),
                finish.clone(),
                self.clone(),
            );
            p.then(self, move |c| match c {
                Ok(v) => {
                    if let Some(slot) = values.borrow_mut().get_mut(i) {
                        *slot = Some(v);
                    }
                    remaining.set(remaining.get() - 1);
                    if remaining.get() == 0 {
                        finish();
                    }
                }
                Err(e) => out.settle(&realm, Err(e)),
            });
        }
        remaining.set(remaining.get() - 1);
        if remaining.get() == 0 {
            finish();
        }
        out
    }
}

impl<T: Clone + 'static> Promise<T> {
    pub(crate) fn pending() -> Promise<T> {
        Promise(Rc::new(RefCell::new(PromiseData {
            state: State::Pending(Vec::new()),
            handled: Rc::new(Cell::new(false)),
        })))
    }

    /// `Promise.resolve(v)` / `Promise.reject(e)` (already settled).
    pub(crate) fn resolved(completion: Completion<T>) -> Promise<T> {
        Promise(Rc::new(RefCell::new(PromiseData {
            state: State::Settled(completion),
            handled: Rc::new(Cell::new(false)),
        })))
    }

    pub(crate) fn settled(&self) -> Option<Completion<T>> {
        match &self.0.borrow().state {
            State::Settled(c) => Some(c.clone()),
            State::Pending(_) => None,
        }
    }

    /// Resolves or rejects (once; later calls do nothing), queueing a job
    /// per reaction in the order they were attached.
    pub(crate) fn settle(&self, realm: &Realm, completion: Completion<T>) {
        let reactions = {
            let mut data = self.0.borrow_mut();
            if matches!(data.state, State::Settled(_)) {
                return;
            }
            if completion.is_err() && !data.handled.get() {
                realm.0.rejections.borrow_mut().push(data.handled.clone());
            }
            match std::mem::replace(&mut data.state, State::Settled(completion.clone())) {
                State::Pending(reactions) => reactions,
                State::Settled(_) => Vec::new(),
            }
        };
        for reaction in reactions {
            let c = completion.clone();
            realm.enqueue(move || reaction(c));
        }
    }

    /// `PerformPromiseThen`: the reaction runs as a job once settled.
    pub(crate) fn then(&self, realm: &Realm, reaction: impl FnOnce(Completion<T>) + 'static) {
        let mut data = self.0.borrow_mut();
        data.handled.set(true);
        match &mut data.state {
            State::Pending(reactions) => reactions.push(Box::new(reaction)),
            State::Settled(c) => {
                let c = c.clone();
                realm.enqueue(move || reaction(c));
            }
        }
    }
}

/// The future of `await promise`: resumed by the job of the promise's
/// reaction, never by a Rust waker.
pub(crate) struct Await<T> {
    realm: Realm,
    promise: Option<Promise<T>>,
    slot: Rc<RefCell<Option<Completion<T>>>>,
}

impl<T: Clone + 'static> Future for Await<T> {
    type Output = Completion<T>;

    fn poll(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<Completion<T>> {
        if let Some(c) = self.slot.borrow_mut().take() {
            return Poll::Ready(c);
        }
        if let Some(promise) = self.promise.take() {
            let Some(task) = self.realm.0.current.get() else {
                return Poll::Ready(Err(Thrown::type_error(
                    "toolgate: an await outside an async function of the realm",
                )));
            };
            let slot = self.slot.clone();
            let realm = self.realm.clone();
            promise.then(&self.realm, move |c| {
                *slot.borrow_mut() = Some(c);
                realm.resume(task);
            });
        }
        Poll::Pending
    }
}
