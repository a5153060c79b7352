//! What the example passes share: reading the file their command line names and printing
//! what their pass made of it.

use std::process::ExitCode;

/// Runs `run` on the text of the file named by the first argument and prints its output;
/// errors go to stderr with exit code 1 (2 without a file).
pub fn main_on_file(example: &str, run: impl FnOnce(&str) -> Result<String, String>) -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: {example} FILE");
        return ExitCode::from(2);
    };
    let printed = std::fs::read_to_string(&path)
        .map_err(|error| format!("cannot read {path}: {error}"))
        .and_then(|text| run(&text));
    match printed {
        Ok(printed) => {
            print!("{printed}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(1)
        }
    }
}
