//! The `hlo-layout` command. All of clap, colours, files and exit codes live in `cli`.

mod cli;

// Parsing and lowering allocate many small short-lived objects; mimalloc serves them much
// faster than the system allocator (measured by `cargo bench --bench parse`).
#[global_allocator]
static ALLOCATOR: cli::allocator::Allocator = cli::allocator::Allocator;

fn main() -> std::process::ExitCode {
    cli::main()
}
