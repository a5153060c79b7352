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
    // Large modules are parsed on two threads (in halves, or one reading the rest ahead) and
    // verified on two, and `check` runs on one; each stage is also timed on one thread, so
    // that both figures stand
    // beside XLA's (one thread). The two are timed file by file, one after the other, so
    // that a slow spell of the machine touches both alike.
    const MODES: [(&str, usize); 2] = [
        ("1 thread", usize::MAX),
        ("2 threads", hlo_layout::parallel::PARSE_MIN_BYTES),
    ];
    let python = std::env::var("HLO_PYTHON").unwrap_or_else(|_| "/work/venv/bin/python".into());
    let xla = (!python.is_empty() && Path::new(&python).exists()).then_some(python);
    if xla.is_none() {
        println!("XLA not measured: no python with jax (set HLO_PYTHON)");
    }
    let mut totals: [Stages; 2] = Default::default();
    let mut total_bytes = 0usize;
    // Seconds XLA took for the files it was timed on, and ours (two threads) for the same.
    let (mut xla_seconds, mut ours_seconds, mut ours_verified_seconds) = (0.0, 0.0, 0.0);
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        total_bytes += text.len();
        let mb = text.len() as f64 / 1e6;
        let mut two_threads = Stages::default();
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
            two_threads = stages;
        }
        // XLA right after ours on the same file, so that a slow spell of the machine
        // touches both alike.
        let Some(seconds) = xla
            .as_deref()
            .and_then(|python| xla_parse_seconds(root, python, path))
        else {
            continue;
        };
        xla_seconds += seconds;
        ours_seconds += two_threads.lower;
        ours_verified_seconds += two_threads.verify;
        println!(
            "xla              {:50} {mb:5.2} MB  parse {:6.1} MB/s  -> text -> IR {:4.1}x XLA, verified IR {:4.1}x (two threads)",
            name(path),
            mb / seconds,
            seconds / two_threads.lower,
            seconds / two_threads.verify,
        );
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
    if xla_seconds > 0.0 {
        println!(
            "xla total: {:.1} MB/s parse (best of {} a file); text -> IR {:.1}x XLA, verified IR {:.1}x (two threads)",
            mb / xla_seconds,
            repeats(),
            xla_seconds / ours_seconds,
            xla_seconds / ours_verified_seconds,
        );
    }
}

/// XLA's best time parsing `path` (`benches/xla_compare.py --time`), in seconds.
fn xla_parse_seconds(root: &Path, python: &str, path: &Path) -> Option<f64> {
    let output = std::process::Command::new(python)
        .arg(root.join("benches/xla_compare.py"))
        .arg("-n")
        .arg(repeats().to_string())
        .arg("--time")
        .arg(path)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|output| output.status.success());
    let Some(output) = output else {
        println!(
            "XLA not measured on {}: xla_compare.py --time failed",
            name(path)
        );
        return None;
    };
    // `xla  name  3.90 MB  21.4 MB/s`: the file's size over its throughput.
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().next()?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let mb: f64 = words.get(2)?.parse().ok()?;
    let mb_per_second: f64 = words.get(4)?.parse().ok()?;
    Some(mb / mb_per_second)
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

/// Times text -> syntax tree, text -> IR, text -> verified IR and `check`, parsing modules
/// of `min_bytes` and more on two threads.
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
    for _ in 0..repeats() {
        let start = Instant::now();
        let trees: Vec<_> = parts
            .iter()
            .map(|range| hlo_layout::syntax::parse_module_range(text, range.clone()))
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
            hlo_layout::parallel::VERIFY_MIN_INSTRUCTIONS
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
                hlo_layout::check::check_computation_by_computation(text, range.clone(), &options);
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
