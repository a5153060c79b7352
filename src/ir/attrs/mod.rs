//! Typed values of the instruction attributes that shape inference needs (docs/hlo-text.md §5):
//! windows, padding, slices, convolution dim labels and the dot, gather and scatter dimension
//! numbers. Each parser reads the text the lexer gives for the value and each `Display`
//! prints exactly XLA's form, so a value read from XLA's output prints back unchanged.
//!
//! Errors carry no spans: the caller knows where the text came from and adds them.
//!
//! Each value has a file: `window`, `padding`, `slice`, `dim_labels` (a convolution's
//! dimension numbers) and `dimension_numbers` (dot, gather and scatter); `text` reads and
//! writes the integers and lists they are written with, and `error` says why a value could
//! not be read.

mod dim_labels;
mod dimension_numbers;
mod error;
mod padding;
mod slice;
mod text;
mod window;

pub use dim_labels::ConvDimensionNumbers;
pub use dimension_numbers::{DotDimensionNumbers, GatherDimensionNumbers, ScatterDimensionNumbers};
pub use error::AttrError;
pub use padding::{PaddingConfig, PaddingDimension};
pub use slice::{SliceConfig, SliceRange};
pub use text::{name_list, parse_dxd, parse_int, parse_int_list};
pub use window::{Window, WindowDimension};
