// Scratch driver: formats every file, checks the fixed point, writes outputs to $OUT.
fn main() {
    let out_dir = std::env::var("OUT").ok();
    let (mut ok, mut bad, mut notfixed) = (0, 0, 0);
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).unwrap();
        let parts = if std::env::var("SPLIT").is_ok() {
            hlo_layout::syntax::split_modules(&text)
        } else {
            vec![0..text.len()]
        };
        for (k, r) in parts.into_iter().enumerate() {
            match hlo_layout::format_module_range(&text, r) {
                Ok(once) => {
                    ok += 1;
                    let twice = hlo_layout::format_module(&once);
                    if twice.as_ref() != Ok(&once) {
                        notfixed += 1;
                        println!("{path}#{k}: not a fixed point");
                        if let Err(e) = &twice {
                            for e in e.iter().take(2) {
                                println!("   {e} {:?}", &once[e_span(e)]);
                            }
                        }
                    }
                    if let Some(d) = &out_dir {
                        let name = std::path::Path::new(&path)
                            .file_name()
                            .unwrap()
                            .to_string_lossy()
                            .to_string();
                        std::fs::write(format!("{d}/{name}.{k}.hlo"), &once).unwrap();
                    }
                }
                Err(errors) => {
                    bad += 1;
                    for e in errors.iter().take(3) {
                        println!("{path}#{k}: {e}");
                    }
                }
            }
        }
    }
    println!("ok {ok} bad {bad} not-fixed {notfixed}");
}
fn e_span(e: &hlo_layout::Error) -> std::ops::Range<usize> {
    let l = miette::Diagnostic::labels(e)
        .and_then(|mut l| l.next())
        .map(|l| l.offset()..l.offset() + l.len())
        .unwrap_or(0..0);
    l
}
