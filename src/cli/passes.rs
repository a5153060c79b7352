//! `hlo-layout passes`: every registered pass with its one-line description and flags.

use std::fmt::Write;

use super::Outcome;

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_: Args) -> Outcome {
    let passes = hlo_layout::pass::registry::all();
    let width = passes.iter().map(|p| p.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for info in passes {
        let _ = writeln!(out, "{:<width$}  {}", info.name, info.description);
        for (flag, what) in info.flags {
            let _ = writeln!(out, "{:<width$}    {{{flag}}}: {what}", "");
        }
    }
    out.push_str("\nRun them with `hlo-layout opt FILE --passes a,b,fixpoint(c,d)`.\n");
    super::write_output(None, &out)
}
