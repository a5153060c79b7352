//! Generates the LR(1) parser from `grammar/` into `$OUT_DIR`.

fn main() {
    println!("cargo:rerun-if-changed=grammar");
    if let Err(err) = lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .emit_rerun_directives(true)
        .process()
    {
        eprintln!("lalrpop failed: {err}");
        std::process::exit(1);
    }
}
