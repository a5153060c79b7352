//! Scratch: attribute names whose value has more than one top-level term, over files.
fn main() {
    let mut seen = std::collections::BTreeMap::<String, (usize, String)>::new();
    for path in std::env::args().skip(1) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for range in hlo_layout::syntax::split_modules(&text) {
            let Ok(m) = hlo_layout::syntax::parse_module_range(&text, range) else {
                continue;
            };
            let mut visit = |attrs: &[hlo_layout::syntax::ast::Attribute<'_>]| {
                for a in attrs {
                    if a.value.len() > 1 {
                        let e = seen
                            .entry(a.name.text.to_string())
                            .or_insert((0, String::new()));
                        e.0 += 1;
                        if e.1.is_empty() {
                            e.1 = format!(
                                "{}: {}",
                                path,
                                &text[a.span.start..a.span.end.min(a.span.start + 120)]
                            );
                        }
                    }
                }
            };
            if let Some(h) = &m.header {
                visit(&h.attributes);
            }
            for c in &m.computations {
                visit(&c.attributes);
                for i in &c.instructions {
                    visit(&i.attributes);
                }
            }
        }
    }
    for (k, (n, ex)) in seen {
        println!("{k} {n}  {ex}");
    }
}
