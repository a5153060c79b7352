//! Generates the LR(1) parsers from `grammar/` into `$OUT_DIR`: the grammar as written
//! (table-driven, with error recovery), and the same grammar without its recovery rules as a
//! recursive-ascent parser, faster, which reads text that has no syntax error.

use std::path::PathBuf;

/// How many alternatives of `grammar/hlo.lalrpop` recover from errors (`<e:!> ...`). The
/// happy-path grammar drops them; a changed count stops the build so that this stays in step.
const RECOVERY_RULES: usize = 3;

fn main() {
    println!("cargo:rerun-if-changed=grammar");
    if let Err(err) = generate() {
        eprintln!("lalrpop failed: {err}");
        std::process::exit(1);
    }
}

fn generate() -> Result<(), Box<dyn std::error::Error>> {
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .emit_rerun_directives(true)
        .process()?;

    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    let grammar = std::fs::read_to_string("grammar/hlo.lalrpop")?;
    let happy_dir = out_dir.join("happy_path");
    std::fs::create_dir_all(&happy_dir)?;
    std::fs::write(
        happy_dir.join("hlo_happy_path.lalrpop"),
        happy_path(&grammar)?,
    )?;
    lalrpop::Configuration::new()
        .set_in_dir(&happy_dir)
        .set_out_dir(&out_dir)
        .process()?;
    Ok(())
}

/// The grammar without its error-recovery alternatives, generated as recursive ascent (which
/// lalrpop offers only without error recovery).
fn happy_path(grammar: &str) -> Result<String, String> {
    let mut dropped = 0;
    let mut out = String::with_capacity(grammar.len() + 32);
    for line in grammar.lines() {
        if line.trim_start().starts_with("<e:!>") {
            dropped += 1;
            continue;
        }
        if line.starts_with("grammar<") {
            out.push_str("#[recursive_ascent]\n");
        }
        out.push_str(line);
        out.push('\n');
    }
    if dropped != RECOVERY_RULES || !out.contains("#[recursive_ascent]") {
        return Err(format!(
            "grammar/hlo.lalrpop has {dropped} `<e:!>` alternatives (build.rs expects \
             {RECOVERY_RULES}) or no `grammar<` line"
        ));
    }
    Ok(out)
}
