//! Parse throughput (text to syntax tree) on the largest corpus files, beside XLA's own
//! parser measured in the same run through `benches/xla_compare.py --time` when a jax venv
//! is there. Not a test: `cargo bench --bench parse`.
//!
//! Environment: `HLO_CORPUS` (default `../shared/corpus`), `HLO_PYTHON` (default
//! `/work/venv/bin/python`; set it empty to skip XLA).

use std::path::{Path, PathBuf};
use std::time::Instant;

const REPEATS: usize = 7;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = std::env::var_os("HLO_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus"));
    if !corpus.is_dir() {
        println!("skipping: {} not found", corpus.display());
        return;
    }
    let files = bench_files(&corpus);
    let mut total_bytes = 0usize;
    let mut total_seconds = 0f64;
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let parts = hlo_layout::syntax::split_modules(&text);
        let mut best = f64::INFINITY;
        for _ in 0..REPEATS {
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
        total_bytes += text.len();
        total_seconds += best;
        println!(
            "ours {:60} {:7.2} MB  {:8.1} MB/s",
            name(path),
            text.len() as f64 / 1e6,
            text.len() as f64 / best / 1e6
        );
    }
    println!(
        "ours total: {:.2} MB in {:.1} ms = {:.1} MB/s (best of {REPEATS})",
        total_bytes as f64 / 1e6,
        total_seconds * 1e3,
        total_bytes as f64 / total_seconds / 1e6
    );
    let python = std::env::var("HLO_PYTHON").unwrap_or_else(|_| "/work/venv/bin/python".into());
    if python.is_empty() || !Path::new(&python).exists() {
        println!("XLA not measured: no python with jax at {python:?} (set HLO_PYTHON)");
        return;
    }
    let status = std::process::Command::new(&python)
        .arg(root.join("benches/xla_compare.py"))
        .arg("-n")
        .arg(REPEATS.to_string())
        .arg("--time")
        .args(&files)
        .stderr(std::process::Stdio::null())
        .status();
    if !status.is_ok_and(|s| s.success()) {
        println!("XLA not measured: {python} benches/xla_compare.py --time failed");
    }
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
