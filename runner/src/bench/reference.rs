//! The reference as a [`Bencher`], in this process: each family built as
//! whole calls on the model (`toolgate_benches::calls`) and timed by
//! [`sampling::measure`]; the baseline is `serde_json::to_string` of the
//! 4 KiB value. Peak memory is counted by the counting allocator
//! (`toolgate_benches::heap_count`), which the `toolgate` binary installs:
//! one more call, counted on this thread.

use super::sampling;
use super::{BenchOutcome, Bencher, BASELINE};
use crate::protocol::{BenchRequest, Hello, Measured, OUTPUT_ECHO};
use std::hint::black_box;
use std::time::Instant;
use toolgate_benches::calls::{self, BuildError, RunError};
use toolgate_benches::heap_count::counted;

/// The reference in process.
pub struct ReferenceBench {
    hello: Hello,
}

impl Default for ReferenceBench {
    fn default() -> ReferenceBench {
        ReferenceBench::new()
    }
}

impl ReferenceBench {
    pub fn new() -> ReferenceBench {
        ReferenceBench {
            hello: crate::subject::reference_hello(),
        }
    }
}

fn nanos(since: Instant) -> u64 {
    u64::try_from(since.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// Whether the counting allocator is installed: an allocation counted.
fn counting() -> bool {
    counted(|| black_box(Vec::<u8>::with_capacity(64)))
        .1
        .allocations
        > 0
}

impl Bencher for ReferenceBench {
    fn hello(&self) -> &Hello {
        &self.hello
    }

    fn command(&self) -> Option<&str> {
        None
    }

    fn bench(&mut self, request: &BenchRequest) -> Result<BenchOutcome, String> {
        let built = Instant::now();
        if request.family == BASELINE {
            let value = toolgate_benches::baseline_value();
            let build_nanos = nanos(built);
            let taken = sampling::measure::<String>(&request.plan, || {
                black_box(serde_json::to_string(black_box(&value)).map_err(|e| e.to_string())?);
                Ok(())
            })?;
            let text = serde_json::to_string(&value).map_err(|e| e.to_string())?;
            return Ok(BenchOutcome::Measured(Measured {
                build_nanos,
                first_nanos: taken.first_nanos,
                samples: taken.samples,
                peak_bytes: None,
                memory: None,
                output_length: Some(text.encode_utf16().count() as u64),
                output: None,
                rejected: None,
            }));
        }
        let input = calls::build(&request.family, request.size).map_err(|BuildError(e)| e)?;
        let prepared = input.prepare().map_err(|BuildError(e)| e)?;
        let build_nanos = nanos(built);
        let mut first = None;
        let taken = sampling::measure(&request.plan, || {
            let results = prepared.run()?;
            if first.is_none() {
                first = results.into_iter().next();
            }
            Ok(())
        });
        let taken = match taken {
            Ok(taken) => taken,
            Err(RunError::OutsideModel(what)) => {
                return Ok(BenchOutcome::Skipped(format!(
                    "the reference's model of the host does not model this input: {what}"
                )))
            }
            Err(RunError::Broken(e)) => return Err(e),
        };
        let (peak_bytes, memory) = if counting() {
            let (_, count) = counted(|| prepared.run());
            (
                Some(u64::try_from(count.peak).unwrap_or(0)),
                Some("heap".to_string()),
            )
        } else {
            (None, None)
        };
        let (content, rejected) = match first {
            Some(Ok(result)) => (Some(result.content), None),
            Some(Err(e)) => (None, Some(e.to_string())),
            None => (None, None),
        };
        let output_length = content.as_ref().map(|c| c.encode_utf16().count() as u64);
        Ok(BenchOutcome::Measured(Measured {
            build_nanos,
            first_nanos: taken.first_nanos,
            samples: taken.samples,
            peak_bytes,
            memory,
            output: content.filter(|_| output_length.is_some_and(|n| n <= OUTPUT_ECHO)),
            output_length,
            rejected,
        }))
    }
}
