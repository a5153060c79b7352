//! Dumps between passes, named as XLA names them (`xla/service/dump.cc`):
//! `module_0000.<module>.0001.<pipeline>.after_<pass>.before_<next>.txt`.
//!
//! As in XLA's `HloPassPipeline`, the first dump is `after_pipeline-start.before_<first>`,
//! the last pass is followed by `pipeline-end`, a dump is written when the regex matches
//! either name, the regex `.*` skips passes that changed nothing, and the step number counts
//! the dumps written for the module, from 0.

use std::path::PathBuf;

use regex::Regex;

/// The name XLA uses before the first pass.
pub const PIPELINE_START: &str = "pipeline-start";
/// The name XLA uses after the last pass.
pub const PIPELINE_END: &str = "pipeline-end";

/// Where and what to dump.
#[derive(Clone, Debug)]
pub struct DumpOptions {
    /// The directory the dumps go into; it is made when the first dump is written.
    pub dir: PathBuf,
    /// Dumps after passes whose name (or the next pass's name) this matches, anywhere in the
    /// name, as XLA's `--xla_dump_hlo_pass_re` does.
    pub pass_re: Regex,
    /// The `module_NNNN` number; XLA's module unique id.
    pub module_id: u32,
}

impl DumpOptions {
    /// Dumps into `dir` around the passes `pass_re` matches, as module 0.
    pub fn new(dir: impl Into<PathBuf>, pass_re: Regex) -> DumpOptions {
        DumpOptions {
            dir: dir.into(),
            pass_re,
            module_id: 0,
        }
    }

    /// Whether a dump between `after` and `before` is wanted (XLA's
    /// `DumpHloModuleBetweenPassesIfEnabled` and its `.*` rule).
    pub(crate) fn wants(&self, after: &str, before: &str, changed: bool) -> bool {
        if self.pass_re.as_str() == ".*" && !changed && after != PIPELINE_START {
            return false;
        }
        self.pass_re.is_match(after) || self.pass_re.is_match(before)
    }
}

/// The file name XLA gives the dump after `after` and before `before`, step `step`. Like
/// XLA, it leaves out the module name when the name would exceed 255 bytes, and replaces
/// `/ \ [ ]` and spaces with `_`.
pub fn dump_file_name(
    module_id: u32,
    module: &str,
    step: u32,
    pipeline: &str,
    after: &str,
    before: &str,
) -> String {
    let suffix = format!("{step:04}.{pipeline}.after_{after}.before_{before}");
    let mut name = format!("module_{module_id:04}.{module}.{suffix}");
    if module.is_empty() || name.len() > 255 {
        name = format!("module_{module_id:04}.{suffix}");
    }
    name.push_str(".txt");
    name.chars()
        .map(|c| match c {
            '/' | '\\' | '[' | ']' | ' ' => '_',
            c => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_xla() {
        assert_eq!(
            dump_file_name(0, "jit_f", 1, "opt", "dce", PIPELINE_END),
            "module_0000.jit_f.0001.opt.after_dce.before_pipeline-end.txt"
        );
        let long = "m".repeat(300);
        assert_eq!(
            dump_file_name(3, &long, 12, "p", "a b", "c/d"),
            "module_0003.0012.p.after_a_b.before_c_d.txt"
        );
    }

    #[test]
    fn everything_regex_skips_unchanged_passes() {
        let all = DumpOptions::new("d", Regex::new(".*").unwrap());
        assert!(all.wants(PIPELINE_START, "dce", false));
        assert!(!all.wants("dce", "verify", false));
        assert!(all.wants("dce", "verify", true));
        let dce = DumpOptions::new("d", Regex::new("dce").unwrap());
        assert!(dce.wants("verify", "dce", false));
        assert!(!dce.wants("verify", PIPELINE_END, true));
    }
}
