//! Errors: the library's 13 codes as [`ErrorKind`] (plus `Unknown` for a code a newer library
//! might add) and an [`Error`] that carries the detail text — of the failing call, or of the
//! failed job (`cuzk_result.detail`).
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

use cuzk_sys as sys;

/// What went wrong, one variant per `CUZK_E*` code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// `CUZK_EINVAL`: a malformed argument (in a job: a scalar not below r, say).
    Invalid,
    /// `CUZK_ENOMEM`: host memory exhausted.
    NoMem,
    /// `CUZK_EAGAIN`: nothing ready yet, or the queue is full: try again later.
    Again,
    /// `CUZK_ECANCELED`: the job was canceled.
    Canceled,
    /// `CUZK_EFORMAT`: bytes that do not decode (file, point, proof).
    Format,
    /// `CUZK_EMISMATCH`: sizes that do not fit together (partition vs key).
    Mismatch,
    /// `CUZK_EBUDGET`: a reservation that can never fit the configured budget.
    Budget,
    /// `CUZK_EDEVICE`: a GPU/CUDA failure, or CUDA requested where there is none.
    Device,
    /// `CUZK_EVERIFY`: a well-formed proof that does not verify.
    Verify,
    /// `CUZK_ESHUTDOWN`: the engine is being destroyed.
    Shutdown,
    /// `CUZK_EIO`: an operating-system I/O failure.
    Io,
    /// `CUZK_ENOTFOUND`: a stale, foreign or unknown handle.
    NotFound,
    /// `CUZK_ERANGE`: an output buffer too small.
    Range,
    /// A code this binding does not know (a newer library); the number is kept.
    Unknown(i32),
}

const KINDS: [(ErrorKind, c_int, &str); 13] = [
    (ErrorKind::Invalid, sys::CUZK_EINVAL, "CUZK_EINVAL"),
    (ErrorKind::NoMem, sys::CUZK_ENOMEM, "CUZK_ENOMEM"),
    (ErrorKind::Again, sys::CUZK_EAGAIN, "CUZK_EAGAIN"),
    (ErrorKind::Canceled, sys::CUZK_ECANCELED, "CUZK_ECANCELED"),
    (ErrorKind::Format, sys::CUZK_EFORMAT, "CUZK_EFORMAT"),
    (ErrorKind::Mismatch, sys::CUZK_EMISMATCH, "CUZK_EMISMATCH"),
    (ErrorKind::Budget, sys::CUZK_EBUDGET, "CUZK_EBUDGET"),
    (ErrorKind::Device, sys::CUZK_EDEVICE, "CUZK_EDEVICE"),
    (ErrorKind::Verify, sys::CUZK_EVERIFY, "CUZK_EVERIFY"),
    (ErrorKind::Shutdown, sys::CUZK_ESHUTDOWN, "CUZK_ESHUTDOWN"),
    (ErrorKind::Io, sys::CUZK_EIO, "CUZK_EIO"),
    (ErrorKind::NotFound, sys::CUZK_ENOTFOUND, "CUZK_ENOTFOUND"),
    (ErrorKind::Range, sys::CUZK_ERANGE, "CUZK_ERANGE"),
];

impl ErrorKind {
    /// The kind of a negative `CUZK_E*` code (`Unknown` for any other number, 0 included).
    pub fn from_code(code: i32) -> ErrorKind {
        KINDS.iter().find(|k| k.1 == code).map_or(ErrorKind::Unknown(code), |k| k.0)
    }

    /// The C code (`CUZK_EINVAL` = -1, ...).
    pub fn code(self) -> i32 {
        match self {
            ErrorKind::Unknown(c) => c,
            k => KINDS.iter().find(|e| e.0 == k).map_or(0, |e| e.1),
        }
    }

    /// The C name: "CUZK_EINVAL", ... ("CUZK_E?" for an unknown code).
    pub fn name(self) -> &'static str {
        KINDS.iter().find(|e| e.0 == self).map_or("CUZK_E?", |e| e.2)
    }
}

/// A libcuzk failure: its kind and the library's detail ("aux\[17\] is not below r (canonical
/// form)", "b_g2 has 998 points, density popcount is 1000"), which may be empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    pub detail: String,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: ErrorKind, detail: impl Into<String>) -> Error {
        Error { kind, detail: detail.into() }
    }

    /// The C code of [`Error::kind`].
    pub fn code(&self) -> i32 {
        self.kind.code()
    }

    /// An error from a job's status and its `detail[256]`: the text up to the first NUL, and
    /// never past the array (a library that wrote none leaves it zeroed: "").
    pub(crate) fn from_job(code: i32, detail: &[c_char]) -> Error {
        let bytes: Vec<u8> = detail.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
        Error { kind: ErrorKind::from_code(code), detail: String::from_utf8_lossy(&bytes).into_owned() }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // cuzk_strerror returns a static string for any int (thread-safe, never NULL).
        let text = unsafe { CStr::from_ptr(sys::cuzk_strerror(self.code())) }.to_string_lossy();
        match self.kind {
            ErrorKind::Unknown(c) => write!(f, "libcuzk error {c} ({text})")?,
            _ => write!(f, "{text}")?,
        }
        if !self.detail.is_empty() {
            write!(f, ": {}", self.detail)?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// Turns a synchronous call's return code into a Result. The detail is the calling thread's
/// `cuzk_last_error()`, read right after the call on the same thread (a Rust thread does not
/// migrate between the two, so no lock is needed).
pub(crate) fn check(rc: c_int) -> Result<()> {
    if rc == sys::CUZK_OK {
        return Ok(());
    }
    // Thread-local, valid until this thread's next cuzk_ call: copied at once.
    let detail = unsafe { CStr::from_ptr(sys::cuzk_last_error()) }.to_string_lossy().into_owned();
    Err(Error { kind: ErrorKind::from_code(rc), detail })
}

pub(crate) fn invalid(detail: impl Into<String>) -> Error {
    Error::new(ErrorKind::Invalid, detail)
}
