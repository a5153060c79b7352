//! The house's rules, read off the library's source (issue 30): no source file imports
//! another that imports it back, however long the chain (types that truly contain each
//! other share one file), each layer imports only the layers `lib.rs` lists before it, and
//! only `parallel` starts threads.
//!
//! Imports are the paths that start with `crate::`, `super::` or `self::`, in `use`
//! declarations (groups included) and inline, outside comments and outside a file's
//! `#[cfg(test)]` module, which may reach anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The library's files, keyed by module path (`["ir", "shape"]` for `src/ir/shape.rs`); the
/// command (`main.rs`, `cli/`) is a crate of its own.
fn library_files() -> BTreeMap<Vec<String>, PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let relative = path.strip_prefix(&src).unwrap().with_extension("");
            let mut module: Vec<String> = relative
                .iter()
                .map(|part| part.to_string_lossy().into_owned())
                .collect();
            if path.extension().is_none_or(|e| e != "rs")
                || module[0] == "cli"
                || module == ["main"]
            {
                continue;
            }
            if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
                module.pop();
            }
            files.insert(module, path);
        }
    }
    files
}

/// `text` without comments, string literals' contents and `#[cfg(test)]` modules.
fn code_of(text: &str) -> String {
    let code = without_comments_and_strings(text);
    let mut out = String::with_capacity(code.len());
    let mut rest = code.as_str();
    while let Some(at) = rest.find("#[cfg(test)]\nmod ") {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        // Skip the module's braces; strings and comments are gone, so braces balance.
        let Some(open) = rest.find('{') else {
            rest = "";
            break;
        };
        let mut depth = 0;
        let mut end = rest.len();
        for (i, c) in rest[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// `text` with comments removed and string and char literals emptied.
fn without_comments_and_strings(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '"' => {
                // A raw string (`r#"..."#`) ends at its own terminator; others at an
                // unescaped quote.
                let hashes = out.len() - out.trim_end_matches('#').len();
                let raw = hashes > 0 && out[..out.len() - hashes].ends_with('r');
                let terminator: String = std::iter::once('"')
                    .chain(std::iter::repeat_n('#', hashes))
                    .collect();
                let mut seen = String::new();
                while let Some(c) = chars.next() {
                    if raw {
                        seen.push(c);
                        if seen.ends_with(&terminator) {
                            break;
                        }
                    } else if c == '\\' {
                        chars.next();
                    } else if c == '"' {
                        break;
                    }
                }
                out.push_str("\"\"");
            }
            '\'' => {
                // A char literal (`'"'`, `'\''`) is skipped; a lifetime (`'a`) is code.
                let mut ahead = chars.clone();
                match (ahead.next(), ahead.next()) {
                    (Some('\\'), _) => {
                        chars.next();
                        chars.next();
                        for c in chars.by_ref() {
                            if c == '\'' {
                                break;
                            }
                        }
                    }
                    (Some(_), Some('\'')) => {
                        chars.next();
                        chars.next();
                    }
                    _ => out.push(c),
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// Every module path the code at `at` names: a path (`a::b::C`) or a use tree with groups
/// (`a::{b, c::{d, e}}`), each as its segments.
fn paths_at(code: &[u8], at: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    loop {
        while code.get(*at).is_some_and(|b| b.is_ascii_whitespace()) {
            *at += 1;
        }
        match code.get(*at) {
            Some(b'{') => {
                *at += 1;
                loop {
                    paths_at(code, at, &path, out);
                    while code.get(*at).is_some_and(|b| b.is_ascii_whitespace()) {
                        *at += 1;
                    }
                    match code.get(*at) {
                        Some(b',') => *at += 1,
                        Some(b'}') => {
                            *at += 1;
                            return;
                        }
                        _ => return,
                    }
                    while code.get(*at).is_some_and(|b| b.is_ascii_whitespace()) {
                        *at += 1;
                    }
                    if code.get(*at) == Some(&b'}') {
                        *at += 1;
                        return;
                    }
                }
            }
            Some(b) if b.is_ascii_alphanumeric() || *b == b'_' => {
                let start = *at;
                while code
                    .get(*at)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
                {
                    *at += 1;
                }
                let segment = String::from_utf8_lossy(&code[start..*at]).into_owned();
                if segment != "self" {
                    path.push(segment);
                }
                if code.get(*at..*at + 2) == Some(b"::") {
                    *at += 2;
                    continue;
                }
                out.push(path);
                return;
            }
            _ => {
                out.push(path);
                return;
            }
        }
    }
}

/// The files `module`'s code imports from, other than itself.
fn imports(
    module: &[String],
    code: &str,
    files: &BTreeMap<Vec<String>, PathBuf>,
) -> BTreeSet<Vec<String>> {
    let bytes = code.as_bytes();
    // Where each path starts, with the module it is relative to.
    let mut starts: Vec<(usize, Vec<String>)> = Vec::new();
    for (keyword, base) in [
        ("crate::", Vec::new()),
        ("super::", module[..module.len().saturating_sub(1)].to_vec()),
        ("self::", module.to_vec()),
    ] {
        for (at, _) in code.match_indices(keyword) {
            let before = at.checked_sub(1).map(|i| bytes[i]);
            if !before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':') {
                starts.push((at + keyword.len(), base.clone()));
            }
        }
    }
    // A path whose first segment names a child module (`use child::X`, `child::f()`: Rust
    // 2018 paths) is the child's; other first segments are crates (`std`, `petgraph`...) or
    // types.
    for (at, _) in code.match_indices("::") {
        let start = code[..at]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        if start == at || code[..start].ends_with("::") {
            continue;
        }
        let mut child = module.to_vec();
        child.push(code[start..at].to_string());
        if files.contains_key(&child) {
            starts.push((start, module.to_vec()));
        }
    }
    let mut found = BTreeSet::new();
    for (mut cursor, base) in starts {
        let mut paths = Vec::new();
        paths_at(bytes, &mut cursor, &base, &mut paths);
        for path in paths {
            // The file is the longest prefix of the path that is a module file.
            let file = (1..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|prefix| files.contains_key(prefix));
            if let Some(file) = file.filter(|file| file != module) {
                found.insert(file);
            }
        }
    }
    found
}

/// The layers `lib.rs` lists, lowest first: its line `Layers, lowest first: ...`.
fn stated_layers() -> Vec<String> {
    let lib =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lib.rs")).unwrap();
    let line = lib
        .lines()
        .find_map(|line| line.strip_prefix("//! Layers, lowest first:"))
        .expect("lib.rs states its layers in a line `//! Layers, lowest first: a, b, ...`");
    line.split(',')
        .map(|layer| layer.trim().trim_matches(['`', '.']).to_string())
        .collect()
}

fn graph() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let files = library_files();
    files
        .iter()
        .map(|(module, path)| {
            let code = code_of(&std::fs::read_to_string(path).unwrap());
            (module.clone(), imports(module, &code, &files))
        })
        .collect()
}

fn name(module: &[String]) -> String {
    if module.is_empty() {
        "lib".to_string()
    } else {
        module.join("::")
    }
}

/// Strongly connected components of more than one file (Tarjan's, iterative).
fn circles(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Vec<Vec<String>> {
    let nodes: Vec<&Vec<String>> = graph.keys().collect();
    let index_of: BTreeMap<&Vec<String>, usize> =
        nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let edges: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            graph[*n]
                .iter()
                .filter_map(|m| index_of.get(m).copied())
                .collect()
        })
        .collect();
    let count = nodes.len();
    let (mut index, mut low) = (vec![usize::MAX; count], vec![0; count]);
    let (mut on_stack, mut stack, mut next, mut found) = (vec![false; count], vec![], 0, vec![]);
    for root in 0..count {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0)];
        while let Some((v, edge)) = work.pop() {
            if edge == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = edges[v].get(edge) {
                work.push((v, edge + 1));
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(name(nodes[w]));
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    found.push(component);
                }
            }
        }
    }
    found
}

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    let circles = circles(&graph());
    assert!(
        circles.is_empty(),
        "import circles (files that reach each other through imports):\n{}",
        circles
            .iter()
            .map(|c| format!("  {}", c.join(" <-> ")))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn each_layer_imports_only_the_layers_below_it() {
    let layers = stated_layers();
    let graph = graph();
    let rank = |module: &[String]| {
        let layer = module.first().map_or("lib", String::as_str);
        layers.iter().position(|l| l == layer)
    };
    let mut unlisted = BTreeSet::new();
    let mut upward = Vec::new();
    for (from, targets) in &graph {
        if from.is_empty() {
            continue;
        }
        let Some(from_rank) = rank(from) else {
            unlisted.insert(from[0].clone());
            continue;
        };
        for to in targets {
            match rank(to) {
                Some(to_rank) if to_rank < from_rank || to.first() == from.first() => {}
                Some(_) => upward.push(format!("  {} -> {}", name(from), name(to))),
                None if to.is_empty() => upward.push(format!("  {} -> lib", name(from))),
                None => {
                    unlisted.insert(to[0].clone());
                }
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "layers lib.rs does not list: {unlisted:?}"
    );
    assert!(
        upward.is_empty(),
        "imports against the layers ({}):\n{}",
        layers.join(" < "),
        upward.join("\n")
    );
}

/// Only `parallel` starts threads (`lib.rs`): no other file of the library names a way to
/// start one outside its tests.
#[test]
fn only_parallel_starts_threads() {
    let ways = ["thread::scope", "thread::spawn", "thread::Builder"];
    let mut starting = Vec::new();
    for (module, path) in library_files() {
        let code = code_of(&std::fs::read_to_string(&path).unwrap());
        let starts = ways.iter().any(|way| code.contains(way));
        if module == ["parallel"] {
            assert!(
                starts,
                "parallel starts no thread: the test looks for the wrong words"
            );
        } else if starts {
            starting.push(name(&module));
        }
    }
    assert!(
        starting.is_empty(),
        "files that start threads, which only parallel does: {starting:?}"
    );
}

/// The reader itself: a grouped import names each file it reaches, a comment or a string
/// names none.
#[test]
fn the_reader_sees_grouped_imports_and_skips_comments() {
    let mut files = BTreeMap::new();
    for module in [&["ir", "shape"][..], &["ir", "layout"], &["print"], &["ir"]] {
        files.insert(
            module.iter().map(|s| s.to_string()).collect(),
            PathBuf::new(),
        );
    }
    let code = code_of(
        "use crate::ir::{shape::Shape, layout::{Layout, Tile}};\n// crate::print::x\nlet s = \"crate::print\";\nlet q = '\"'; let r = r#\"crate::print \" \"#;\n",
    );
    let found = imports(&["verify".to_string()], &code, &files);
    let names: Vec<String> = found.iter().map(|m| name(m)).collect();
    assert_eq!(names, ["ir::layout", "ir::shape"]);
    let code = code_of("fn g() { layout::f(); }\n");
    let found = imports(&["ir".to_string()], &code, &files);
    let names: Vec<String> = found.iter().map(|m| name(m)).collect();
    assert_eq!(names, ["ir::layout"]);
    let code = code_of("pub use shape::Shape;\n");
    let found = imports(&["ir".to_string()], &code, &files);
    let names: Vec<String> = found.iter().map(|m| name(m)).collect();
    assert_eq!(names, ["ir::shape"]);
    let code = code_of("fn f() { super::layout::g(); self::x(); }");
    let found = imports(&["ir".to_string(), "shape".to_string()], &code, &files);
    let names: Vec<String> = found.iter().map(|m| name(m)).collect();
    assert_eq!(names, ["ir::layout"]);
}
