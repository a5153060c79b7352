//! Throughput on the largest corpus files of parsing (text to syntax tree), of parsing and
//! lowering (text to the IR graph, what XLA's parser does), and of those plus the verifier,
//! beside XLA's own parser measured in the same run through `benches/xla_compare.py --time`
//! when a jax venv is there. Not a test: `cargo bench --bench parse`.
//!
//! Environment: `HLO_CORPUS` (default `../shared/corpus`), `HLO_PYTHON` (default
//! `/work/venv/bin/python`; set it empty to skip XLA).

use std::path::{Path, PathBuf};

use std::time::Instant;

mod common;

/// How many times each file is timed (best run kept); `HLO_BENCH_REPEATS` overrides it.
fn repeats() -> usize {
    common::repeats(7)
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = std::env::var_os("HLO_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus"));
    if !corpus.is_dir() {
        println!("skipping: {} not found", corpus.display());
        return;
    }
    // `HLO_BENCH_FILTER=mixtral` keeps the files whose name contains the text (profiling).
    let filter = std::env::var("HLO_BENCH_FILTER").unwrap_or_default();
    let files: Vec<PathBuf> = bench_files(&corpus)
        .into_iter()
        .filter(|p| name(p).contains(&filter))
        .collect();
    let mut total_bytes = 0usize;
    let mut total_seconds = 0f64;
    let mut total_lower_seconds = 0f64;
    let mut total_verify_seconds = 0f64;
    let mut total_instructions = 0usize;
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let parts = hlo_layout::syntax::split_modules(&text);
        let mut best = f64::INFINITY;
        for _ in 0..repeats() {
            let start = Instant::now();
            let mut modules = Vec::with_capacity(parts.len());
            for range in &parts {
                modules.push(hlo_layout::syntax::parse_module_range(&text, range.clone()));
            }
            best = best.min(start.elapsed().as_secs_f64());
            assert!(
                modules.iter().all(Result::is_ok),
                "{} does not parse",
                path.display()
            );
            drop(modules);
        }
        let (best_lower, best_verify, instructions) = lower_and_verify(&text, &parts);
        total_instructions += instructions;
        total_bytes += text.len();
        total_seconds += best;
        total_lower_seconds += best_lower;
        total_verify_seconds += best_verify;
        let mb = text.len() as f64 / 1e6;
        println!(
            "ours {:60} {:7.2} MB  parse {:7.1} MB/s  +lower {:7.1} MB/s ({:5.2} M instr/s)  +verify {:7.1} MB/s",
            name(path),
            mb,
            mb / best,
            mb / best_lower,
            instructions as f64 / best_lower / 1e6,
            mb / best_verify
        );
    }
    let mb = total_bytes as f64 / 1e6;
    println!(
        "ours total: {mb:.2} MB, {total_instructions} instructions; parse {:.1} MB/s, parse+lower {:.1} MB/s ({:.2} M instructions/s), parse+lower+verify {:.1} MB/s (best of {})",
        mb / total_seconds,
        mb / total_lower_seconds,
        total_instructions as f64 / total_lower_seconds / 1e6,
        mb / total_verify_seconds,
        repeats()
    );
    let python = std::env::var("HLO_PYTHON").unwrap_or_else(|_| "/work/venv/bin/python".into());
    if python.is_empty() || !Path::new(&python).exists() {
        println!("XLA not measured: no python with jax at {python:?} (set HLO_PYTHON)");
        return;
    }
    let status = std::process::Command::new(&python)
        .arg(root.join("benches/xla_compare.py"))
        .arg("-n")
        .arg(repeats().to_string())
        .arg("--time")
        .args(&files)
        .stderr(std::process::Stdio::null())
        .status();
    if !status.is_ok_and(|s| s.success()) {
        println!("XLA not measured: {python} benches/xla_compare.py --time failed");
    }
}

/// Best times of text -> IR and of text -> IR -> verified, over every module of the file,
/// and the number of instructions read.
fn lower_and_verify(text: &str, parts: &[std::ops::Range<usize>]) -> (f64, f64, usize) {
    let mut best_lower = f64::INFINITY;
    let mut best_verify = f64::INFINITY;
    let mut instructions = 0;
    let options = hlo_layout::verify::VerifyOptions::default();
    for _ in 0..repeats() {
        let start = Instant::now();
        let modules: Vec<_> = parts
            .iter()
            .filter_map(|range| hlo_layout::parse_module_range(text, range.clone()).ok())
            .collect();
        let lowered = start.elapsed().as_secs_f64();
        for module in &modules {
            let _ = hlo_layout::verify::verify(module, &options);
        }
        best_lower = best_lower.min(lowered);
        best_verify = best_verify.min(start.elapsed().as_secs_f64());
        instructions = modules.iter().map(|m| m.instruction_count()).sum();
    }
    (best_lower, best_verify, instructions)
}

/// The `large/` files and the five largest `xla-tests/` files.
fn bench_files(corpus: &Path) -> Vec<PathBuf> {
    let list = |dir: PathBuf| -> Vec<(u64, PathBuf)> {
        std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok())
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "hlo"))
                    .map(|p| (std::fs::metadata(&p).map_or(0, |m| m.len()), p))
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut large = list(corpus.join("large"));
    large.sort();
    let mut tests = list(corpus.join("xla-tests"));
    tests.sort_by(|a, b| b.cmp(a));
    tests.truncate(5);
    large.into_iter().chain(tests).map(|(_, p)| p).collect()
}

fn name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
