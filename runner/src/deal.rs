//! The queue `toolgate run --jobs N` deals cases from: one producer puts
//! jobs in order (with a bound, so generation stays a little ahead of the
//! workers and no further), N workers take whichever is next when they are
//! free. A worker whose adapter the run gave up on gives its job back and
//! leaves, so the cases go to the processes still working; the last worker
//! never leaves, so every job ends with an outcome.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};

/// A bounded job queue shared by one producer and some workers.
pub struct Queue<J> {
    state: Mutex<State<J>>,
    /// Signalled when a job is put or the queue is closed.
    ready: Condvar,
    /// Signalled when a job is taken or a worker leaves.
    room: Condvar,
    bound: usize,
}

struct State<J> {
    jobs: VecDeque<J>,
    /// The producer has put its last job.
    closed: bool,
    /// Workers still taking jobs.
    workers: usize,
    /// Every worker is gone (each panicked): jobs put are dropped.
    abandoned: bool,
}

impl<J> Queue<J> {
    /// A queue for `workers` workers, holding at most `bound` jobs waiting.
    pub fn new(workers: usize, bound: usize) -> Queue<J> {
        Queue {
            state: Mutex::new(State {
                jobs: VecDeque::new(),
                closed: false,
                workers: workers.max(1),
                abandoned: false,
            }),
            ready: Condvar::new(),
            room: Condvar::new(),
            bound: bound.max(1),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<J>> {
        // a worker that panicked holding the lock left the queue whole
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Puts a job, waiting while the queue is full; `false` when no worker
    /// is left to take it (the producer may stop).
    pub fn put(&self, job: J) -> bool {
        let mut state = self.lock();
        while state.jobs.len() >= self.bound && !state.abandoned {
            state = self.room.wait(state).unwrap_or_else(|e| e.into_inner());
        }
        if state.abandoned {
            return false;
        }
        state.jobs.push_back(job);
        self.ready.notify_one();
        true
    }

    /// Says no job will come after those put.
    pub fn close(&self) {
        self.lock().closed = true;
        self.ready.notify_all();
    }

    /// The next job; `None` once the queue is closed and empty.
    pub fn take(&self) -> Option<J> {
        let mut state = self.lock();
        loop {
            if let Some(job) = state.jobs.pop_front() {
                self.room.notify_one();
                return Some(job);
            }
            if state.closed {
                return None;
            }
            state = self.ready.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// A worker that can do no more gives back the job it took and leaves,
    /// unless it is the last worker: then it keeps the job (`Err`), since
    /// nobody else would take it.
    pub fn give_back(&self, job: J) -> Result<(), J> {
        let mut state = self.lock();
        if state.workers <= 1 {
            return Err(job);
        }
        state.workers -= 1;
        state.jobs.push_front(job);
        self.ready.notify_one();
        self.room.notify_all();
        Ok(())
    }

    /// A worker that never took a job (its adapter did not start) leaves;
    /// `false` if it is the last one, which must then stay.
    pub fn leave(&self) -> bool {
        let mut state = self.lock();
        if state.workers <= 1 {
            return false;
        }
        state.workers -= 1;
        self.room.notify_all();
        true
    }
}

impl<J> Queue<J> {
    /// A worker that ends without taking its leave (it panicked) stops
    /// counting; once none is left, the jobs waiting are dropped and the
    /// producer is told to stop, so nobody waits for the dead.
    pub fn abandon(&self) {
        let mut state = self.lock();
        state.workers = state.workers.saturating_sub(1);
        if state.workers == 0 {
            state.abandoned = true;
            state.closed = true;
            state.jobs.clear();
        }
        self.ready.notify_all();
        self.room.notify_all();
    }

    /// Nobody collects the outcomes any more: the jobs waiting are
    /// dropped, the producer is told to stop, and each worker finds the
    /// queue closed once its job is done.
    pub fn abandon_all(&self) {
        let mut state = self.lock();
        state.abandoned = true;
        state.closed = true;
        state.jobs.clear();
        self.ready.notify_all();
        self.room.notify_all();
    }
}

/// Held by the thread that collects the workers' outcomes: if it panics,
/// the queue is abandoned on the way out, so that the producer and the
/// workers end and the panic is reported instead of the run hanging on
/// threads that wait for each other.
pub struct Collecting<'q, J>(pub &'q Queue<J>);

impl<J> Drop for Collecting<'_, J> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.abandon_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Queue;
    use std::sync::Mutex;

    /// Four workers over 1,000 jobs through a queue of two: every job is
    /// taken exactly once, one worker leaves half way giving its job back,
    /// and the last worker cannot leave.
    #[test]
    fn every_job_is_taken_once_and_a_job_given_back_is_taken_by_another() {
        let queue = Queue::new(4, 2);
        let taken = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for worker in 0..4 {
                let (queue, taken) = (&queue, &taken);
                scope.spawn(move || {
                    while let Some(job) = queue.take() {
                        if worker == 0 && job >= 500 {
                            queue.give_back(job).expect("three others are working");
                            return;
                        }
                        taken.lock().unwrap().push(job);
                    }
                });
            }
            for job in 0..1_000u32 {
                queue.put(job);
            }
            queue.close();
        });
        let mut taken = taken.into_inner().unwrap();
        taken.sort_unstable();
        assert_eq!(taken, (0..1_000).collect::<Vec<_>>());
        let last = Queue::new(1, 1);
        assert_eq!(last.give_back(7), Err(7));
        assert!(!last.leave());
    }

    /// The collecting thread panics with a producer waiting for room and
    /// workers waiting for jobs: all of them end, and the panic comes out
    /// of the scope (it hung before).
    #[test]
    fn a_panicking_collector_ends_the_producer_and_the_workers() {
        let queue = Queue::new(2, 1);
        let (sender, results) = std::sync::mpsc::channel::<u32>();
        let ended = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            std::thread::scope(|scope| {
                let queue = &queue;
                scope.spawn(move || {
                    let mut put = 0;
                    while queue.put(put) {
                        put += 1;
                    }
                });
                for _ in 0..2 {
                    let sender = sender.clone();
                    scope.spawn(move || {
                        while let Some(job) = queue.take() {
                            if sender.send(job).is_err() {
                                break;
                            }
                        }
                    });
                }
                let _collecting = super::Collecting(queue);
                for job in results.iter() {
                    assert!(job < 10, "the collector fails at job {job}");
                }
            });
        }));
        assert!(ended.is_err(), "the collector's panic comes out");
    }

    /// A producer whose workers all died is told so at its next put rather
    /// than waiting for room forever.
    #[test]
    fn a_producer_stops_when_every_worker_is_gone() {
        let queue = Queue::new(2, 1);
        std::thread::scope(|scope| {
            for _ in 0..2 {
                scope.spawn(|| {
                    queue.take();
                    queue.abandon();
                });
            }
            let mut put = 0;
            while queue.put(put) {
                put += 1;
                assert!(put < 1_000, "the producer was never told");
            }
        });
        assert_eq!(queue.take(), None);
    }
}
