fn main() {
    for path in std::env::args().skip(1) {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut best = f64::MAX;
        for _ in 0..5 {
            let t = std::time::Instant::now();
            let m = hlo_layout::syntax::parse_module(&text).unwrap();
            let e = t.elapsed().as_secs_f64();
            drop(m);
            best = best.min(e);
        }
        let mut lbest = f64::MAX;
        for _ in 0..5 {
            let t = std::time::Instant::now();
            let n = hlo_layout::syntax::lexer::Lexer::new(&text).count();
            lbest = lbest.min(t.elapsed().as_secs_f64());
            std::hint::black_box(n);
        }
        println!(
            "{path}: {:.1} MB/s parse, lex {:.1} MB/s",
            text.len() as f64 / best / 1e6,
            text.len() as f64 / lbest / 1e6
        );
    }
}
#[allow(dead_code)]
fn sizes() {}
