//! A Python `str`'s text as `&str`, borrowed from the string rather than copied.
//!
//! pyo3's `PyBackedStr` copies the text into a new `bytes` object when built for the stable API
//! of Python 3.9, as this package is: on a 60 MB module that copy costs a sixth of the parse.
//! CPython exports `PyUnicode_AsUTF8AndSize` in every version this package supports (in the
//! stable API since 3.10, as a plain export before): for ASCII text it returns the string's own
//! storage, otherwise a UTF-8 copy that the string caches, and either lives as long as the
//! string does.

use std::ffi::c_char;
use std::ops::Deref;
use std::ptr::NonNull;

use pyo3::exceptions::PyValueError;
use pyo3::ffi::{PyObject, Py_ssize_t};
use pyo3::prelude::*;
use pyo3::types::PyString;

extern "C" {
    fn PyUnicode_AsUTF8AndSize(unicode: *mut PyObject, size: *mut Py_ssize_t) -> *const c_char;
}

/// The UTF-8 text of a Python `str`, kept alive by holding the string.
pub struct Text {
    _owner: Py<PyString>,
    text: NonNull<str>,
}

// SAFETY: a Python `str` is immutable, and its UTF-8 buffer is never freed or changed while the
// string lives, so the text may be read from any thread.
unsafe impl Send for Text {}
unsafe impl Sync for Text {}

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        // SAFETY: `text` points into `_owner`'s buffer, which lives as long as `self`.
        unsafe { self.text.as_ref() }
    }
}

impl FromPyObject<'_, '_> for Text {
    type Error = PyErr;

    fn extract(object: Borrowed<'_, '_, PyAny>) -> PyResult<Self> {
        let string = object.cast::<PyString>()?.to_owned();
        let mut length: Py_ssize_t = 0;
        // SAFETY: `string` is a live `str` and we hold the GIL; the function either fails with a
        // Python exception set or returns a buffer of `length` bytes of valid UTF-8.
        let data = unsafe { PyUnicode_AsUTF8AndSize(string.as_ptr(), &mut length) };
        let Some(data) = NonNull::new(data.cast_mut().cast::<u8>()) else {
            return Err(PyErr::fetch(object.py()));
        };
        let Ok(length) = usize::try_from(length) else {
            return Err(PyValueError::new_err("a str of negative length"));
        };
        // SAFETY: CPython guarantees the `length` bytes at `data` are the string's UTF-8 text.
        let text = unsafe {
            NonNull::from(std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                data.as_ptr(),
                length,
            )))
        };
        Ok(Text {
            _owner: string.unbind(),
            text,
        })
    }
}
