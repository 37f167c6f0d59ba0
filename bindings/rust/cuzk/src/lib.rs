//! Safe Rust binding of libcuzk, a Groth16 (BLS12-381) proving engine for Filecoin
//! partitions on GPUs and CPUs. The raw declarations are the `cuzk-sys` crate (re-exported as
//! [`sys`]); docs/rust.md in the repository is the integration guide.
//!
//! Two ways to hand the engine a partition, both sound against leaks (`mem::forget`):
//! - an owned [`Witness`] in engine host memory ([`Engine::witness`]): submitting moves it
//!   into the engine, the job's [`Outcome`] hands it back ([`Engine::submit`]);
//! - a borrowed [`Partition`] over the host's own slices, inside [`Engine::scope`], which does
//!   not return before the engine has finished reading them ([`Scope::submit`]);
//! - a borrowed [`WitnessPartition`] (inputs and aux only) of a circuit whose constraints
//!   were loaded once ([`Engine::load_cs`]): the engine evaluates a, b, c itself
//!   ([`Scope::submit_witness`]).
//!
//! ```no_run
//! # fn main() -> cuzk::Result<()> {
//! let engine = cuzk::Engine::new(&cuzk::Options::default())?;
//! let srs = engine.load_srs("porep.params")?;
//! let (a, b, c, inputs, aux) = (vec![cuzk::Fr::default(); 4], vec![cuzk::Fr::default(); 4],
//!     vec![cuzk::Fr::default(); 4], vec![cuzk::Fr::default(); 2], vec![cuzk::Fr::default(); 3]);
//! let (a_aux, b_in, b_aux) = (vec![0u64; 1], vec![0u64; 1], vec![0u64; 1]);
//! let part = cuzk::Partition { scalar_form: cuzk::ScalarForm::Montgomery, a: &a, b: &b, c: &c,
//!     inputs: &inputs, aux: &aux, a_aux_density: &a_aux, b_input_density: &b_in,
//!     b_aux_density: &b_aux, r: None, s: None, priority: 0, tag: 7 };
//! let out = engine.scope(|s| -> cuzk::Result<_> {
//!     s.submit(&srs, part)?;
//!     Ok(engine.poll(None)?.expect("a result"))
//! })?; // the engine no longer reads a, b, c, ... here
//! let proof: [u8; 192] = out.proof?;
//! # Ok(()) }
//! ```
//!
//! Threads: [`Engine`], [`Srs`], [`Witness`], [`Scope`] and [`Circuit`] are `Send + Sync`
//! (each states why); any thread may submit, poll or cancel.
use std::ffi::{CStr, CString};
use std::path::Path;

pub use cuzk_sys as sys;

mod circom;
mod cs;
mod engine;
mod error;
mod partition;
mod placement;
mod scope;
mod stats;
mod trace;
mod witness;

pub use circom::{insecure_test_setup, load_wtns, CircomPartition, Circuit};
pub use cs::{convert_r1cs, ConstraintSystem, CsInfo, WitnessPartition};
pub use engine::{Backend, Engine, Job, Options, Outcome, Srs};
pub use error::{Error, ErrorKind, Result};
pub use partition::{density_words, Partition, ScalarForm, Shape};
pub use placement::{Placement, PlacementKind};
pub use scope::Scope;
pub use stats::Stats;
pub use trace::{TraceEvent, TraceKind};
pub use witness::{SubmitError, Witness, WitnessMut};

/// One element of Fr, the BLS12-381 scalar field: four little-endian 64-bit limbs.
pub type Fr = sys::cuzk_fr;

/// A proof: A‖B‖C compressed, 192 bytes, bellperson's `Proof::write`.
pub type Proof = [u8; 192];

/// The loaded library's version: `(major * 10000 + minor * 100 + patch, "major.minor.patch")`.
pub fn version() -> (u32, String) {
    let s = unsafe { CStr::from_ptr(sys::cuzk_version_string()) }.to_string_lossy().into_owned();
    (unsafe { sys::cuzk_version_number() }, s)
}

/// Whether the loaded library can serve these declarations: the same major version, and at
/// least the minor they were written against (later minors only add).
pub fn compatible() -> bool {
    let v = version().0;
    v / 10000 == sys::CUZK_VERSION_NUMBER / 10000 && v >= sys::CUZK_VERSION_NUMBER
}

pub(crate) fn check_version() -> Result<()> {
    if compatible() {
        return Ok(());
    }
    Err(error::invalid(format!(
        "libcuzk {} is loaded; this binding needs {}.{} or a later {}.x",
        version().1,
        sys::CUZK_VERSION_MAJOR,
        sys::CUZK_VERSION_MINOR,
        sys::CUZK_VERSION_MAJOR
    )))
}

/// Checks a proof against a verifying key (bellperson's bytes; a whole .params file works
/// too) and the public inputs (ONE excluded). `ErrorKind::Verify`: well formed, not valid;
/// `ErrorKind::Format`: the key or the proof does not decode.
pub fn verify(vk: &[u8], proof: &Proof, public: &[Fr], form: ScalarForm) -> Result<()> {
    error::check(unsafe {
        sys::cuzk_verify(vk.as_ptr(), vk.len(), proof.as_ptr(), public.as_ptr(), public.len(), form.raw())
    })
}

pub(crate) fn cpath(p: &Path) -> Result<CString> {
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str()).to_vec();
    #[cfg(not(unix))]
    let bytes = p.to_str().ok_or_else(|| error::invalid("path is not UTF-8"))?.as_bytes().to_vec();
    CString::new(bytes).map_err(|_| error::invalid(format!("path {} contains a NUL byte", p.display())))
}
