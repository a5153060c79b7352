//! How each stage scales with module size: a real module replicated 1, 2, 4 and 8 times by
//! `benches/replicate.py`, then parse+lower, verify, print and assign timed on each, with MB/s,
//! instructions/s and the time relative to 1× (linear is 2.0 at 2×, 8.0 at 8×).
//! Not a test: `cargo bench --bench scaling`.
//!
//! Environment: `HLO_SCALING_SOURCE` (default the corpus transformer `*.opt.hlo`),
//! `HLO_SCALES` (default `1,2,4,8`), `HLO_BENCH_REPEATS` (default 3, best kept),
//! `HLO_SCALING_STAGES` (default `parse,verify,print,assign`; `command` adds whole runs of
//! `hlo-layout COMMAND FILE -o OUT` as a user runs them, for the commands of
//! `HLO_SCALING_COMMANDS`, default `assign,fmt,opt,check,stats,dot`, each with its peak RSS
//! and its ratio to the input's size where
//! GNU time is at `/usr/bin/time`). The replicated modules are
//! written to `target/scaling/` and reused. `HLO_SCALING_FILES=a.hlo:b.hlo` times those files
//! as they are instead (what `benches/compare.py` uses).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

mod common;

fn repeats() -> usize {
    common::repeats(3)
}

/// The best time of `repeats()` runs of `f`, each on a fresh `setup()` value.
fn best<S, R>(mut setup: impl FnMut() -> S, mut f: impl FnMut(S) -> R) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..repeats() {
        let input = setup();
        let start = Instant::now();
        let result = f(input);
        best = best.min(start.elapsed().as_secs_f64());
        // Freeing the result is not part of the stage.
        drop(result);
    }
    best
}

/// `source` replicated `copies` times, generated once into `dir`.
fn replicated(source: &Path, copies: usize, dir: &Path) -> Option<PathBuf> {
    let stem = source.file_stem()?.to_string_lossy().into_owned();
    let out = dir.join(format!("{stem}.x{copies}.hlo"));
    let fresh = |p: &Path| {
        let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/replicate.py");
        modified(p) >= modified(source).max(modified(&script))
    };
    if out.exists() && fresh(&out) {
        return Some(out);
    }
    let status = Command::new("python3")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/replicate.py"))
        .arg(source)
        .arg(copies.to_string())
        .arg("-o")
        .arg(&out)
        .status()
        .ok()?;
    status.success().then_some(out)
}

struct Row {
    file: String,
    stage: String,
    copies: usize,
    bytes: usize,
    instructions: usize,
    seconds: f64,
    /// Peak RSS in KiB as GNU time gives it, for stages run as a process.
    peak_rss: Option<u64>,
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let source = std::env::var_os("HLO_SCALING_SOURCE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            root.join("../shared/corpus/large/transformer24_spmd_2x4_bf16_train.opt.hlo")
        });
    if !source.is_file() {
        println!("skipping: {} not found", source.display());
        return;
    }
    let scales: Vec<usize> = std::env::var("HLO_SCALES")
        .unwrap_or_else(|_| "1,2,4,8".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let stages =
        std::env::var("HLO_SCALING_STAGES").unwrap_or_else(|_| "parse,verify,print,assign".into());
    let wants = |stage: &str| stages.split(',').any(|s| s.trim() == stage);
    let dir = root.join("target/scaling");
    let _ = std::fs::create_dir_all(&dir);
    let target = hlo_layout::ir::Target::default_tpu();
    let options = hlo_layout::verify::VerifyOptions::default();
    let mut rows: Vec<Row> = Vec::new();
    let given: Vec<PathBuf> = std::env::var("HLO_SCALING_FILES")
        .map(|files| std::env::split_paths(&files).collect())
        .unwrap_or_default();
    let runs: Vec<(usize, Option<PathBuf>)> = if given.is_empty() {
        scales.iter().map(|&copies| (copies, None)).collect()
    } else {
        given.into_iter().map(|path| (1, Some(path))).collect()
    };
    for (copies, given) in runs {
        // Rows compare with the 1x row of the same source.
        let file = given
            .as_deref()
            .unwrap_or(&source)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some(path) = given.or_else(|| replicated(&source, copies, &dir)) else {
            println!("skipping: python3 benches/replicate.py failed");
            return;
        };
        let text = std::fs::read_to_string(&path).expect("replicated module");
        let module = hlo_layout::parse_module(&text).expect("replicated module parses");
        let instructions = module.instruction_count();
        let bytes = text.len();
        let mut row = |stage: &str, seconds: f64, peak_rss: Option<u64>| {
            rows.push(Row {
                file: file.clone(),
                stage: stage.to_string(),
                copies,
                bytes,
                instructions,
                seconds,
                peak_rss,
            });
            print_row(rows.last().unwrap(), &rows);
        };
        if wants("parse") {
            row(
                "parse+lower",
                best(|| (), |()| hlo_layout::parse_module(&text)),
                None,
            );
        }
        if wants("verify") {
            row(
                "verify",
                best(|| (), |()| hlo_layout::verify::verify(&module, &options)),
                None,
            );
        }
        if wants("print") {
            row(
                "print",
                best(|| (), |()| hlo_layout::print::print_ir_module(&module)),
                None,
            );
        }
        if wants("assign") {
            row(
                "assign",
                best(
                    || module.clone(),
                    |mut m| {
                        hlo_layout::assign::assign_layouts(&mut m, &target).expect("assigns");
                        m
                    },
                ),
                None,
            );
        }
        if wants("command") {
            let output = dir.join("command_out.hlo");
            for name in commands() {
                let mut fastest = (f64::INFINITY, None);
                for _ in 0..repeats() {
                    let (seconds, peak_rss) = run_command(&name, &path, &output);
                    if seconds < fastest.0 {
                        fastest = (seconds, peak_rss);
                    }
                }
                row(&format!("{name} cmd"), fastest.0, fastest.1);
            }
        }
    }
}

/// The commands the `command` stage runs, from `HLO_SCALING_COMMANDS` (default
/// `assign,fmt,opt,check,stats,dot`).
fn commands() -> Vec<String> {
    std::env::var("HLO_SCALING_COMMANDS")
        .unwrap_or_else(|_| "assign,fmt,opt,check,stats,dot".to_string())
        .split(',')
        .map(str::to_string)
        .collect()
}

/// Runs `hlo-layout NAME PATH -o OUTPUT` as a user would (`opt` with the passes
/// `dce,simplify-layout-ops`), under GNU time when it is there: the wall time, and the peak
/// RSS GNU time reports.
fn run_command(name: &str, path: &Path, output: &Path) -> (f64, Option<u64>) {
    // Cargo tells a benchmark where the command is, not an example (`scaling_bench`): that
    // finds it beside its own folder, where `cargo build --release` puts it.
    let binary = match option_env!("CARGO_BIN_EXE_hlo-layout") {
        Some(binary) => PathBuf::from(binary),
        None => std::env::current_exe()
            .ok()
            .and_then(|example| Some(example.parent()?.parent()?.join("hlo-layout")))
            .filter(|binary| binary.is_file())
            .expect("the command is built (cargo build --release)"),
    };
    let gnu_time = Path::new("/usr/bin/time");
    let mut command = if gnu_time.is_file() {
        let mut command = Command::new(gnu_time);
        command.args(["-f", "%M"]).arg(&binary);
        command
    } else {
        Command::new(&binary)
    };
    command.arg(name).arg(path).arg("-o").arg(output);
    if name == "opt" {
        command.args(["--passes", "dce,simplify-layout-ops"]);
    }
    let start = Instant::now();
    let finished = command.output().expect("hlo-layout runs");
    let seconds = start.elapsed().as_secs_f64();
    assert!(finished.status.success(), "hlo-layout {name} failed");
    let peak_kb = String::from_utf8_lossy(&finished.stderr)
        .lines()
        .last()
        .and_then(|line| line.trim().parse::<u64>().ok());
    (seconds, peak_kb)
}

fn print_row(row: &Row, rows: &[Row]) {
    let base = rows
        .iter()
        .find(|r| r.stage == row.stage && r.copies == 1 && r.file == row.file)
        .map(|r| row.seconds / r.seconds);
    let ratio = base.map_or_else(|| "-".to_string(), |b| format!("{b:.2}"));
    let peak = row
        .peak_rss
        .map(|kib| {
            let bytes = kib as f64 * 1024.0;
            format!(
                "  peak RSS {:.0} MiB ({:.1}x the input)",
                bytes / (1 << 20) as f64,
                bytes / row.bytes as f64
            )
        })
        .unwrap_or_default();
    println!(
        "{:12} {:>3}x {:8.2} MB {:>8} instr {:9.1} ms {:8.1} MB/s {:7.2} M instr/s  vs 1x {:>6}  {}{peak}",
        row.stage,
        row.copies,
        row.bytes as f64 / 1e6,
        row.instructions,
        row.seconds * 1e3,
        row.bytes as f64 / 1e6 / row.seconds,
        row.instructions as f64 / 1e6 / row.seconds,
        ratio,
        row.file
    );
}
