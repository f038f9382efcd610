//! How busy an adapter's processes were just before it answered: the CPU
//! time of its process group (the adapter, the runtime's servers and
//! workers it spawned), read from `/proc` while a patient attempt waits.
//!
//! A turn the adapter calls pending at the end of its window may be stuck
//! (its processes idle, waiting on something that never comes) or only
//! slow (still working: a loaded machine stretches everything). A longer
//! window tells the two apart only when the machine lets the turn finish
//! within it; this tells them apart directly, so that the runner gives a
//! still-working turn more time instead of judging the machine's load.
//! Where `/proc` cannot be read (not Linux), nothing is known and the
//! runner keeps its verdict as before.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// How far back from the reply the share is measured: longer than the
/// sampling period, so that a few samples span it.
pub const SPAN: Duration = Duration::from_millis(500);

/// The share of one core below which the group counts as idle. An idle
/// Node or Python process uses well under 1%; one still working gets at
/// least this much of a core even on a machine loaded ten times over two
/// cores.
pub const IDLE_BELOW: f64 = 0.1;

/// A process group's CPU time, sampled over time.
#[derive(Debug)]
pub struct GroupClock {
    group: i32,
    samples: VecDeque<(Instant, Duration)>,
}

impl GroupClock {
    pub fn new(group: i32) -> GroupClock {
        let mut clock = GroupClock {
            group,
            samples: VecDeque::new(),
        };
        clock.tick();
        clock
    }

    /// Takes a sample now (nothing when `/proc` cannot be read), keeping
    /// those that may still be needed to span [`SPAN`].
    pub fn tick(&mut self) {
        let Some(used) = group_cpu(self.group) else {
            return;
        };
        let now = Instant::now();
        self.samples.push_back((now, used));
        while self.samples.len() > 2
            && self
                .samples
                .get(1)
                .is_some_and(|(at, _)| now.duration_since(*at) >= SPAN)
        {
            self.samples.pop_front();
        }
    }

    /// The cores the group used, on average, over at least [`SPAN`] up to
    /// now; `None` when the samples do not span it (an answer quicker than
    /// that, or `/proc` unreadable).
    pub fn share_now(&mut self) -> Option<f64> {
        self.tick();
        let &(end, used_end) = self.samples.back()?;
        let &(start, used_start) = self
            .samples
            .iter()
            .rev()
            .find(|(at, _)| end.duration_since(*at) >= SPAN)?;
        let wall = end.duration_since(start).as_secs_f64();
        Some(used_end.saturating_sub(used_start).as_secs_f64() / wall)
    }
}

/// The CPU time (user and system, with that of reaped children) of every
/// process in `group`, or `None` where `/proc` is not there to read.
#[cfg(target_os = "linux")]
pub fn group_cpu(group: i32) -> Option<Duration> {
    // SAFETY: sysconf has no memory effects.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if ticks <= 0 {
        return None;
    }
    let mut total: u64 = 0;
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        // a process may end between the listing and the read
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        if let Some((in_group, used)) = parse_stat(&stat, group) {
            if in_group {
                total += used;
            }
        }
    }
    Some(Duration::from_secs_f64(total as f64 / ticks as f64))
}

#[cfg(not(target_os = "linux"))]
pub fn group_cpu(_group: i32) -> Option<Duration> {
    None
}

/// From one `/proc/<pid>/stat` line: whether the process is in `group`,
/// and its utime + stime + cutime + cstime in clock ticks. The command
/// name (field 2) is in parentheses and may hold spaces and parentheses,
/// so the fields are counted from the last `)`.
fn parse_stat(stat: &str, group: i32) -> Option<(bool, u64)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_ascii_whitespace().collect();
    // after the name: state, ppid, pgrp, ..., utime is field 14 (index 11)
    let pgrp: i32 = fields.get(2)?.parse().ok()?;
    let mut used = 0u64;
    for i in 11..=14 {
        // cutime and cstime are signed in the kernel's format
        let v: i64 = fields.get(i)?.parse().ok()?;
        used += v.max(0) as u64;
    }
    Some((pgrp == group, used))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_is_read_past_a_name_with_spaces_and_parentheses() {
        let line = "4242 (node (a) b) S 4000 4100 4000 0 -1 4194560 1 0 0 0 \
                    120 30 7 3 20 0 11 0 100 0 0";
        assert_eq!(parse_stat(line, 4100), Some((true, 160)));
        assert_eq!(parse_stat(line, 4000), Some((false, 160)));
        assert_eq!(parse_stat("4242 (short) S 1", 4100), None);
        assert_eq!(parse_stat("garbage", 4100), None);
    }

    /// A group that spins is busy, one that sleeps is idle: the two a
    /// pending turn can be, told apart by the share.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_spinning_group_is_busy_and_a_sleeping_one_idle() {
        use std::os::unix::process::CommandExt;
        let share = |script: &str| {
            let mut child = std::process::Command::new("sh")
                .args(["-c", script])
                .process_group(0)
                .spawn()
                .expect("sh runs");
            let mut clock = GroupClock::new(child.id() as i32);
            let start = Instant::now();
            while start.elapsed() < SPAN + Duration::from_millis(300) {
                std::thread::sleep(Duration::from_millis(100));
                clock.tick();
            }
            let share = clock.share_now();
            let _ = child.kill();
            let _ = child.wait();
            share.expect("/proc is readable")
        };
        let spinning = share("while :; do :; done");
        let sleeping = share("sleep 5");
        assert!(spinning >= IDLE_BELOW, "spinning: {spinning}");
        assert!(sleeping < IDLE_BELOW, "sleeping: {sleeping}");
    }
}
