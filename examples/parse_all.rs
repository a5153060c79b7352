// Scratch driver: parses every file given and prints failures.
fn main() {
    let mut ok = 0;
    let mut bad = 0;
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).unwrap();
        let parts = if std::env::var("SPLIT").is_ok() {
            hlo_layout::syntax::split_modules(&text)
        } else {
            vec![0..text.len()]
        };
        for r in parts {
            match hlo_layout::syntax::parse_module_range(&text, r) {
                Ok(_) => ok += 1,
                Err(errors) => {
                    bad += 1;
                    for e in errors.iter().take(3) {
                        let s = e.span();
                        let line = text[..s.start].matches('\n').count() + 1;
                        println!(
                            "{path}:{line}: {e} [{}] {:?}",
                            &text[s.start..s.end.min(s.start + 40)],
                            miette::Diagnostic::help(e).map(|h| h.to_string())
                        );
                    }
                }
            }
        }
    }
    println!("ok {ok} bad {bad}");
}
