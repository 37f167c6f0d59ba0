//! sppark's error type, as supraseal-c2 exposes it (`cuda::Error`): `#[repr(C)] { code: i32,
//! str: Option<NonNull<i8>> }`, the text a C string from `strdup` that Drop hands to libc's
//! `free`. Here the code is a libcuzk `CUZK_E*` value (negative) and the text is made in Rust,
//! but allocated by libc all the same, so an `Error` that crosses an FFI boundary the way
//! sppark's does (a C caller frees `str`) stays correct.
use std::ffi::{c_char, c_void, CStr, CString};
use std::fmt;
use std::ptr::NonNull;

extern "C" {
    // libc, which every Rust program on Linux links: no crate needed.
    fn strdup(s: *const c_char) -> *mut c_char;
    fn free(p: *mut c_void);
}

#[repr(C)]
pub struct Error {
    /// A libcuzk error code (`CUZK_EINVAL` = -1, ...); never 0 in an `Err`.
    pub code: i32,
    str: Option<NonNull<i8>>,
}

// SAFETY: the text is owned by this value alone (freed in Drop) and never mutated.
unsafe impl Send for Error {}
unsafe impl Sync for Error {}

impl Error {
    pub(crate) fn new(code: i32, text: impl Into<String>) -> Error {
        // A NUL inside the text would cut it short in C; replace it rather than lose the rest.
        let text = CString::new(text.into().replace('\0', " ")).unwrap_or_default();
        let str = NonNull::new(unsafe { strdup(text.as_ptr()) }.cast::<i8>());
        Error { code: if code == 0 { cuzk_sys::CUZK_EINVAL } else { code }, str }
    }

    /// The message ("generate_groth16_proofs: prover 3 of 10: ..."), or the code's name if the
    /// text could not be allocated.
    pub fn message(&self) -> String {
        match self.str {
            Some(p) => unsafe { CStr::from_ptr(p.as_ptr() as *const c_char) }.to_string_lossy().into_owned(),
            None => unsafe { CStr::from_ptr(cuzk_sys::cuzk_strerror(self.code)) }.to_string_lossy().into_owned(),
        }
    }
}

impl Drop for Error {
    fn drop(&mut self) {
        if let Some(p) = self.str.take() {
            unsafe { free(p.as_ptr() as *mut c_void) };
        }
    }
}

impl From<&Error> for String {
    fn from(e: &Error) -> String {
        e.message()
    }
}

impl From<Error> for String {
    fn from(e: Error) -> String {
        e.message()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error").field("code", &self.code).field("str", &self.message()).finish()
    }
}

impl std::error::Error for Error {}
