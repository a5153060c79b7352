//! The `hlo-layout` command. All of clap, colours, files and exit codes live in `cli`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
