//! One thread against two, stage by stage, on the files given: whether each stage's
//! two-thread path pays on them. Not a test:
//!
//! ```text
//! HLO_THREADS_FILES=a.hlo:b.hlo cargo run --release --example threads_bench
//! ```
//!
//! Each stage (`HLO_THREADS_STAGES`, default `parse,print,verify`) is timed on
//! one thread and on two, with the two-thread path taken whatever the module's size; the
//! two runs alternate, each first in turn, so that a slow spell of the machine touches both
//! alike. The best of `HLO_BENCH_REPEATS` (default 7) runs of each is kept, and the whole is
//! repeated `HLO_THREADS_ROUNDS` times (default 2). A small module is run several times in
//! one timing, so that each timing takes a few milliseconds.
//!
//! A second thread pays only while the machine's other core is free, so each row also says
//! how many cores the machine's other processes kept busy while it was timed, on average
//! (Linux: all the CPU time `/proc/stat` counts, less this process's): near 0, the second
//! thread had a core to itself; near 1 or more, it mostly waited for one.

use std::path::PathBuf;
use std::time::Instant;

mod common;

/// How one stage runs on a file, given whether to use two threads.
type Stage<'a> = Box<dyn Fn(bool) + 'a>;

fn main() {
    let files: Vec<PathBuf> = std::env::var("HLO_THREADS_FILES")
        .map(|files| std::env::split_paths(&files).collect())
        .unwrap_or_default();
    if files.is_empty() {
        println!("no files: set HLO_THREADS_FILES=a.hlo:b.hlo");
        return;
    }
    let stages =
        std::env::var("HLO_THREADS_STAGES").unwrap_or_else(|_| "parse,print,verify".into());
    let repeats = common::repeats(7);
    let rounds: usize = std::env::var("HLO_THREADS_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(2);
    let options = hlo_layout::verify::VerifyOptions::default();
    println!(
        "{:34} {:>8} {:>8} {:8} {:>10} {:>10} {:>6} {:>6}",
        "file", "MB", "instr", "stage", "1 thread", "2 threads", "1/2", "others"
    );
    for round in 1..=rounds {
        println!("round {round}");
        for path in &files {
            let text = std::fs::read_to_string(path).expect("readable file");
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            let ranges = hlo_layout::syntax::split_modules(&text);
            let modules: Vec<hlo_layout::ir::Module> = ranges
                .iter()
                .map(|range| hlo_layout::parse_module_range(&text, range.clone()))
                .collect::<Result<_, _>>()
                .expect("the module parses");
            let instructions: usize = modules.iter().map(|m| m.instruction_count()).sum();
            // Runs in one timing: about 4 MB of text.
            let inner = (4_000_000 / text.len().max(1)).max(1);
            let min_bytes = |two: bool| if two { 0 } else { usize::MAX };
            let all: Vec<(&str, Stage<'_>)> = vec![
                (
                    "parse",
                    Box::new(|two| {
                        for range in &ranges {
                            let module = hlo_layout::parse_module_range_cut(
                                &text,
                                range.clone(),
                                min_bytes(two),
                            );
                            assert!(module.is_ok());
                        }
                    }),
                ),
                (
                    "print",
                    Box::new(|two| {
                        for module in &modules {
                            let printed =
                                hlo_layout::print::print_ir_module_on(module, min_bytes(two));
                            assert!(!printed.is_empty());
                        }
                    }),
                ),
                (
                    "verify",
                    Box::new(|two| {
                        for module in &modules {
                            let verified =
                                hlo_layout::verify::verify_on(module, &options, min_bytes(two));
                            assert!(verified.is_ok());
                        }
                    }),
                ),
            ];
            for (stage, run) in &all {
                if !stages.split(',').any(|s| s.trim() == *stage) {
                    continue;
                }
                let mut best = [f64::INFINITY; 2];
                let busy_before = (Instant::now(), cpu_ticks());
                for repeat in 0..repeats {
                    for turn in 0..2 {
                        let two = (repeat + turn) % 2 == 1;
                        let start = Instant::now();
                        for _ in 0..inner {
                            run(two);
                        }
                        let seconds = start.elapsed().as_secs_f64() / inner as f64;
                        let best = &mut best[usize::from(two)];
                        *best = best.min(seconds);
                    }
                }
                let others = other_cores_since(busy_before)
                    .map_or_else(|| "-".to_string(), |cores| format!("{cores:.2}"));
                println!(
                    "{:34} {:8.3} {:8} {:8} {:8.3}ms {:8.3}ms {:6.2} {:>6}",
                    name,
                    text.len() as f64 / 1e6,
                    instructions,
                    stage,
                    best[0] * 1e3,
                    best[1] * 1e3,
                    best[0] / best[1],
                    others
                );
            }
        }
    }
}

/// The CPU time, in clock ticks, of the whole machine and of this process (Linux).
fn cpu_ticks() -> Option<(u64, u64)> {
    let machine = std::fs::read_to_string("/proc/stat").ok()?;
    // user, nice, system, idle, iowait, irq, softirq, steal: all but idle and iowait.
    let fields: Vec<u64> = machine
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(|field| field.parse().ok())
        .collect::<Option<_>>()?;
    let busy = fields.iter().sum::<u64>() - fields.get(3)? - fields.get(4)?;
    let own = std::fs::read_to_string("/proc/self/stat").ok()?;
    // After the command's name, in parentheses: utime and stime are the 12th and 13th.
    let own: Vec<&str> = own.rsplit_once(')')?.1.split_whitespace().collect();
    let ours = own.get(11)?.parse::<u64>().ok()? + own.get(12)?.parse::<u64>().ok()?;
    Some((busy, ours))
}

/// How many cores other processes kept busy since `before`, on average.
fn other_cores_since((at, before): (Instant, Option<(u64, u64)>)) -> Option<f64> {
    let (busy, ours) = cpu_ticks()?;
    let (busy_before, ours_before) = before?;
    let others = busy
        .saturating_sub(busy_before)
        .saturating_sub(ours.saturating_sub(ours_before));
    // Linux counts in USER_HZ ticks, 100 a second.
    Some(others as f64 / 100.0 / at.elapsed().as_secs_f64())
}
