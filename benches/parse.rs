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
    // Modules of 256 KiB and more are parsed on two threads (in halves, or one parsing
    // while the other lowers), large ones verified on two, and `check` uses two from 1 MiB;
    // each stage is also timed on one thread, so that both figures stand
    // beside XLA's (one thread). The two are timed file by file, one after the other, so
    // that a slow spell of the machine touches both alike.
    const MODES: [(&str, usize); 2] = [
        ("1 thread", usize::MAX),
        ("2 threads", hlo_layout::syntax::PARALLEL_MIN_BYTES),
    ];
    let mut totals: [Stages; 2] = Default::default();
    let mut total_bytes = 0usize;
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        total_bytes += text.len();
        let mb = text.len() as f64 / 1e6;
        for ((threads, min_bytes), total) in MODES.iter().zip(&mut totals) {
            let stages = time_stages(&text, *min_bytes, path);
            println!(
                "ours ({threads:9}) {:50} {:5.2} MB  parse {:6.1} MB/s  +lower {:6.1} MB/s ({:4.2} M instr/s)  +verify {:6.1} MB/s  check {:6.1} MB/s",
                name(path),
                mb,
                mb / stages.parse,
                mb / stages.lower,
                stages.instructions as f64 / stages.lower / 1e6,
                mb / stages.verify,
                mb / stages.check
            );
            total.add(&stages);
        }
    }
    let mb = total_bytes as f64 / 1e6;
    for ((threads, _), total) in MODES.iter().zip(&totals) {
        println!(
            "ours total ({threads}): {mb:.2} MB, {} instructions; parse {:.1} MB/s, parse+lower {:.1} MB/s ({:.2} M instructions/s), parse+lower+verify {:.1} MB/s, check one computation at a time {:.1} MB/s (best of {})",
            total.instructions,
            mb / total.parse,
            mb / total.lower,
            total.instructions as f64 / total.lower / 1e6,
            mb / total.verify,
            mb / total.check,
            repeats()
        );
    }
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

/// Best times in seconds of each stage over every module of one file, and the number of
/// instructions read. `check` is what `hlo-layout check` does with a valid module: parse,
/// lower and verify one computation at a time (`hlo_layout::check`).
#[derive(Default)]
struct Stages {
    parse: f64,
    lower: f64,
    verify: f64,
    check: f64,
    instructions: usize,
}

impl Stages {
    fn add(&mut self, other: &Stages) {
        self.parse += other.parse;
        self.lower += other.lower;
        self.verify += other.verify;
        self.check += other.check;
        self.instructions += other.instructions;
    }
}

/// Times text -> syntax tree, text -> IR, text -> verified IR and `check`, parsing (and
/// checking) modules of `min_bytes` and more on two threads.
fn time_stages(text: &str, min_bytes: usize, path: &Path) -> Stages {
    let parts = hlo_layout::syntax::split_modules(text);
    let mut stages = Stages {
        parse: f64::INFINITY,
        lower: f64::INFINITY,
        verify: f64::INFINITY,
        check: f64::INFINITY,
        instructions: 0,
    };
    let options = hlo_layout::verify::VerifyOptions::default();
    // `check` goes to two threads later than parsing does, as the command does.
    let check_min = if min_bytes == usize::MAX {
        usize::MAX
    } else {
        hlo_layout::check::PARALLEL_MIN_BYTES
    };
    for _ in 0..repeats() {
        let start = Instant::now();
        let trees: Vec<_> = parts
            .iter()
            .map(|range| hlo_layout::syntax::parse_module_range_cut(text, range.clone(), min_bytes))
            .collect();
        stages.parse = stages.parse.min(start.elapsed().as_secs_f64());
        assert!(
            trees.iter().all(Result::is_ok),
            "{} does not parse",
            path.display()
        );
        drop(trees);
    }
    for _ in 0..repeats() {
        let start = Instant::now();
        let modules: Vec<_> = parts
            .iter()
            .filter_map(|range| {
                hlo_layout::parse_module_range_cut(text, range.clone(), min_bytes).ok()
            })
            .collect();
        let lowered = start.elapsed().as_secs_f64();
        let min_instructions = if min_bytes == usize::MAX {
            usize::MAX
        } else {
            hlo_layout::verify::PARALLEL_MIN_INSTRUCTIONS
        };
        for module in &modules {
            let _ = hlo_layout::verify::verify_on(module, &options, min_instructions);
        }
        stages.lower = stages.lower.min(lowered);
        stages.verify = stages.verify.min(start.elapsed().as_secs_f64());
        stages.instructions = modules.iter().map(|m| m.instruction_count()).sum();
    }
    for _ in 0..repeats() {
        let start = Instant::now();
        for range in &parts {
            let verdict =
                hlo_layout::check::check_on(text, range.clone(), &options, check_min, &|_| {});
            assert_eq!(verdict, Some(true), "{} does not check", path.display());
        }
        stages.check = stages.check.min(start.elapsed().as_secs_f64());
    }
    stages
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
