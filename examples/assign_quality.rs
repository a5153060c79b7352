//! How good `assign`'s layout choices are, in the two measures issue 28 names:
//!
//! - `padding FILE|DIR...`: for modules with the layouts a user gives (JAX's pre-optimization
//!   dumps), the padded bytes of the laid-out rank >= 2 results as a multiple of their logical
//!   bytes, and the bytes copies move, with the entry layouts given and with `auto`;
//! - `agreement FILE|DIR...`: for modules whose layouts XLA's TPU compiler chose, every
//!   instruction's layouts are erased (all but the entry's, then all of them with `auto`),
//!   `assign` runs, and each array's minor_to_major and tiles are compared with XLA's.
//!
//! ```text
//! cargo run --release --example assign_quality -- padding ../shared/corpus/jax
//! cargo run --release --example assign_quality -- agreement ../shared/corpus/tpu-real
//! ```

use std::path::{Path, PathBuf};

use hlo_layout::assign::{assign_layouts_with, quality, AssignOptions, EntryLayouts, Policy};
use hlo_layout::ir::{Module, Target};

fn files(arguments: &[String]) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for argument in arguments {
        let path = Path::new(argument);
        if path.is_dir() {
            let mut stack = vec![path.to_path_buf()];
            while let Some(dir) = stack.pop() {
                let Ok(entries) = std::fs::read_dir(&dir) else {
                    continue;
                };
                for entry in entries.flatten() {
                    let path = entry.path();
                    if path.is_dir() {
                        stack.push(path);
                    } else if path.extension().is_some_and(|e| e == "hlo") {
                        found.push(path);
                    }
                }
            }
        } else {
            found.push(path.to_path_buf());
        }
    }
    found.sort();
    found
}

fn parse(path: &Path) -> Option<Module> {
    let text = std::fs::read_to_string(path).ok()?;
    let module = hlo_layout::parse_module(&text).ok()?;
    hlo_layout::verify::verify(&module, &Default::default()).ok()?;
    Some(module)
}

fn options(entry_layouts: EntryLayouts, policy: Policy) -> AssignOptions {
    AssignOptions {
        entry_layouts,
        policy,
    }
}

fn padding(paths: &[PathBuf], target: &Target) {
    println!(
        "rank >= 2 buffers, padded bytes / logical bytes; `-params`: without the entry's given parameters"
    );
    println!(
        "{:<36} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} | {:>11} {:>11}",
        "module",
        "before",
        "-params",
        "given",
        "-params",
        "auto",
        "bound",
        "moved before",
        "moved given"
    );
    // Padded and logical bytes: before, before without parameters, given, given without
    // parameters, auto; then the bound and the bytes moved before and given.
    let mut totals = [0i64; 13];
    let ratio = |a: i64, b: i64| if b > 0 { a as f64 / b as f64 } else { 0.0 };
    for path in paths {
        let Some(module) = parse(path) else {
            println!("{:<36} does not parse or verify", path.display());
            continue;
        };
        let mut row = [0i64; 13];
        let runs = [
            (EntryLayouts::Given, Policy::Descending),
            (EntryLayouts::Given, Policy::MinimizeCost),
            (EntryLayouts::Auto, Policy::MinimizeCost),
        ];
        let mut failed = false;
        for (k, (entry, policy)) in runs.into_iter().enumerate() {
            let mut assigned = module.clone();
            let Ok(report) = assign_layouts_with(&mut assigned, target, &options(entry, policy))
            else {
                failed = true;
                continue;
            };
            let (padded, logical) = quality::rank2_bytes(&assigned, false);
            row[4 * k] = padded;
            row[4 * k + 1] = logical;
            if k < 2 {
                let (padded, logical) = quality::rank2_bytes(&assigned, true);
                row[4 * k + 2] = padded;
                row[4 * k + 3] = logical;
                row[11 + k] = report.cost.moved_bytes;
            }
        }
        row[10] = quality::rank2_bound(&module, target);
        println!(
            "{:<36} {:>7.2}x {:>7.2}x {:>7.2}x {:>7.2}x {:>7.2}x {:>7.2}x | {:>11} {:>11}{}",
            path.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into()),
            ratio(row[0], row[1]),
            ratio(row[2], row[3]),
            ratio(row[4], row[5]),
            ratio(row[6], row[7]),
            ratio(row[8], row[9]),
            ratio(row[10], row[1]),
            row[11],
            row[12],
            if failed { " (an assign failed)" } else { "" }
        );
        for (t, r) in totals.iter_mut().zip(row) {
            *t += r;
        }
    }
    println!(
        "{:<36} {:>7.2}x {:>7.2}x {:>7.2}x {:>7.2}x {:>7.2}x {:>7.2}x | {:>11} {:>11}",
        "all",
        ratio(totals[0], totals[1]),
        ratio(totals[2], totals[3]),
        ratio(totals[4], totals[5]),
        ratio(totals[6], totals[7]),
        ratio(totals[8], totals[9]),
        ratio(totals[10], totals[1]),
        totals[11],
        totals[12]
    );
}

/// Whether `SOURCES.tsv` beside the file (or its folder's parent) says XLA's TPU compiler
/// laid the module out (`real`, `real-in-test`), not a person (`test`). Files without an
/// entry count.
fn laid_out_by_xla(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    for dir in path.ancestors().skip(1).take(2) {
        let Ok(sources) = std::fs::read_to_string(dir.join("SOURCES.tsv")) else {
            continue;
        };
        for line in sources.lines() {
            let fields: Vec<&str> = line.split('\t').collect();
            if fields.first().is_some_and(|f| f.ends_with(&name)) {
                return fields.get(4).is_some_and(|kind| kind.starts_with("real"));
            }
        }
    }
    true
}

fn agreement(paths: &[PathBuf], target: &Target, verbose: bool) {
    println!(
        "{:<60} {:>6} {:>14} {:>14} {:>14}",
        "module", "arrays", "before", "given", "all erased+auto"
    );
    let mut totals: [quality::Agreement; 3] = Default::default();
    for path in paths {
        if !laid_out_by_xla(path) {
            continue;
        }
        let Some(original) = parse(path) else {
            continue;
        };
        let target = quality::dump_target(&original, target);
        let erased = quality::erase_layouts(&original, true);
        let all_erased = quality::erase_layouts(&original, false);
        let runs = [
            (&erased, EntryLayouts::Given, Policy::Descending),
            (&erased, EntryLayouts::Given, Policy::MinimizeCost),
            (&all_erased, EntryLayouts::Auto, Policy::MinimizeCost),
        ];
        let mut row: [quality::Agreement; 3] = Default::default();
        let mut failed = false;
        for (k, (module, entry, policy)) in runs.into_iter().enumerate() {
            let mut assigned = module.clone();
            if assign_layouts_with(&mut assigned, &target, &options(entry, policy)).is_err() {
                failed = true;
                continue;
            }
            if let Ok(dir) = std::env::var("HLO_AGREEMENT_DUMP") {
                let stem = path.file_stem().unwrap_or_default().to_string_lossy();
                let write = |suffix: &str, module: &Module| {
                    let text = hlo_layout::print::print_ir_module(module);
                    let _ = std::fs::write(format!("{dir}/{stem}.run{k}.{suffix}.hlo"), text);
                };
                write("in", module);
                write("out", &assigned);
            }
            row[k] = quality::agreement(&original, &assigned);
            if verbose && k == verbose_run() {
                for miss in &row[k].misses {
                    println!(
                        "  {}/{}: xla {:?} {:?} ours {:?} {:?}",
                        miss.computation,
                        miss.instruction,
                        miss.xla.minor_to_major,
                        miss.xla.tiles,
                        miss.ours.minor_to_major,
                        miss.ours.tiles
                    );
                }
            }
        }
        let name: Vec<String> = path
            .iter()
            .rev()
            .take(2)
            .map(|part| part.to_string_lossy().to_string())
            .collect();
        println!(
            "{:<60} {:>6} {:>13.1}% {:>13.1}% {:>13.1}%{}",
            format!("{}/{}", name.get(1).map_or("", String::as_str), name[0]),
            row[0].compared,
            row[0].percent(),
            row[1].percent(),
            row[2].percent(),
            if failed { " (an assign failed)" } else { "" }
        );
        for (total, row) in totals.iter_mut().zip(row) {
            total.add(row);
        }
    }
    println!(
        "{:<60} {:>6} {:>13.1}% {:>13.1}% {:>13.1}%",
        "all arrays",
        totals[0].compared,
        totals[0].percent(),
        totals[1].percent(),
        totals[2].percent()
    );
    println!(
        "{:<60} {:>6} {:>13.1}% {:>13.1}% {:>13.1}%",
        "rank >= 2 arrays",
        totals[0].compared_rank2,
        totals[0].percent_rank2(),
        totals[1].percent_rank2(),
        totals[2].percent_rank2()
    );
}

/// `HLO_AGREEMENT_DUMP=DIR` writes each run's input and output there.
/// Which run's misses `agreement-verbose` lists: 1 (entry's kept, the default) or 2 (all
/// erased, `auto`), from `HLO_AGREEMENT_RUN`.
fn verbose_run() -> usize {
    std::env::var("HLO_AGREEMENT_RUN")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
}

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let target = Target::default_tpu();
    match arguments.split_first() {
        Some((mode, rest)) if mode == "padding" => padding(&files(rest), &target),
        Some((mode, rest)) if mode == "agreement" => agreement(&files(rest), &target, false),
        Some((mode, rest)) if mode == "agreement-verbose" => agreement(&files(rest), &target, true),
        _ => eprintln!("usage: assign_quality padding|agreement FILE|DIR..."),
    }
}
