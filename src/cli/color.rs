//! Whether to colour a stream: the `--color` given, NO_COLOR and CLICOLOR_FORCE, and whether
//! the stream is a terminal. Diagnostics on stderr and `diff`'s lines on stdout both ask, so
//! the decision has a file of its own rather than living with either.

use std::io::IsTerminal;

use super::ColorChoice;

/// The `--color` given, set once by `main`.
pub(super) static COLOR: std::sync::OnceLock<ColorChoice> = std::sync::OnceLock::new();

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// Whether to colour `stream`: `--color always|never`, or for `auto`, not when NO_COLOR is set
/// and non-empty, yes when CLICOLOR_FORCE is set and not `0`, else when it is a terminal.
pub fn use_color(choice: ColorChoice, stream: Stream) -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            if set("NO_COLOR") {
                false
            } else if set("CLICOLOR_FORCE")
                && std::env::var_os("CLICOLOR_FORCE") != Some("0".into())
            {
                true
            } else {
                match stream {
                    Stream::Stdout => std::io::stdout().is_terminal(),
                    Stream::Stderr => std::io::stderr().is_terminal(),
                }
            }
        }
    }
}

/// Whether to colour `stream` under the `--color` given.
pub fn color_for(stream: Stream) -> bool {
    use_color(*COLOR.get().unwrap_or(&ColorChoice::Auto), stream)
}
