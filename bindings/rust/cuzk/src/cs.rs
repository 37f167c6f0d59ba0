//! Constraint systems and witness-only partitions (libcuzk 0.4): a circuit's A, B, C loaded
//! once ([`Engine::load_cs`]), then each partition handed over as its witness alone
//! ([`WitnessPartition`], submitted through a [`Scope`](crate::Scope)); the engine evaluates
//! a = A·w, b = B·w, c = C·w itself. A host then keeps and sends the inputs and aux only: a
//! quarter of the bytes of an a/b/c partition at PoRep's sizes.
use std::ops::Deref;
use std::path::Path;
use std::ptr::{self, NonNull};

use cuzk_sys as sys;

use crate::error::{check, invalid, Result};
use crate::{cpath, Engine, Fr, ScalarForm};

/// A loaded constraint system. Dropping it gives up this hold only: jobs that use it keep it
/// alive inside the engine. It borrows its engine, which therefore outlives it.
pub struct ConstraintSystem<'e> {
    raw: NonNull<sys::cuzk_cs>,
    engine: &'e Engine,
}

// SAFETY: cuzk_cs_release, cuzk_cs_get_info and submitting with a constraint system are
// thread-safe except against cuzk_engine_destroy of its engine, which the borrow rules out.
unsafe impl Send for ConstraintSystem<'_> {}
unsafe impl Sync for ConstraintSystem<'_> {}

impl Drop for ConstraintSystem<'_> {
    fn drop(&mut self) {
        unsafe { sys::cuzk_cs_release(self.raw()) }
    }
}

impl<'e> ConstraintSystem<'e> {
    pub(crate) fn raw(&self) -> *mut sys::cuzk_cs {
        self.raw.as_ptr()
    }
    pub(crate) fn engine(&self) -> &'e Engine {
        self.engine
    }

    /// Its counts and host memory: every member of [`sys::cuzk_cs_info`] reads through
    /// `Deref` (`info.num_aux`, `info.nnz`, ...).
    pub fn info(&self) -> Result<CsInfo> {
        let mut raw = sys::cuzk_cs_info { struct_size: std::mem::size_of::<sys::cuzk_cs_info>() as u32, ..Default::default() };
        check(unsafe { sys::cuzk_cs_get_info(self.raw(), &mut raw) })?;
        Ok(CsInfo(raw))
    }
}

/// What a loaded constraint system holds ([`ConstraintSystem::info`]).
#[derive(Clone, Copy, Debug)]
pub struct CsInfo(sys::cuzk_cs_info);

impl Deref for CsInfo {
    type Target = sys::cuzk_cs_info;
    fn deref(&self) -> &sys::cuzk_cs_info {
        &self.0
    }
}

impl Engine {
    /// Loads a constraint system: a circom `.r1cs` file or libcuzk's compact file
    /// ([`convert_r1cs`], `cuzk cs-convert`), told apart by their first bytes.
    pub fn load_cs(&self, path: impl AsRef<Path>) -> Result<ConstraintSystem<'_>> {
        self.load_cs_flags(path.as_ref(), 0)
    }

    /// As [`Engine::load_cs`], the matrices streamed on every GPU whatever fits
    /// (`CUZK_CS_STREAM`): on a card too small for the key and the system both resident
    /// (PoRep on 16 GB), load the system this way first, then the key.
    pub fn load_cs_streamed(&self, path: impl AsRef<Path>) -> Result<ConstraintSystem<'_>> {
        self.load_cs_flags(path.as_ref(), sys::CUZK_CS_STREAM)
    }

    fn load_cs_flags(&self, path: &Path, flags: u32) -> Result<ConstraintSystem<'_>> {
        let path = cpath(path)?;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::cuzk_cs_load(self.raw(), path.as_ptr(), flags, &mut raw) })?;
        let raw = NonNull::new(raw).ok_or_else(|| invalid("cuzk_cs_load returned no constraint system"))?;
        Ok(ConstraintSystem { raw, engine: self })
    }
}

/// Converts a circom `.r1cs` file into the compact constraint system file that
/// [`Engine::load_cs`] reads in a few large reads (no engine needed).
pub fn convert_r1cs(r1cs: impl AsRef<Path>, out: impl AsRef<Path>) -> Result<()> {
    let (r1cs, out) = (cpath(r1cs.as_ref())?, cpath(out.as_ref())?);
    check(unsafe { sys::cuzk_cs_convert(r1cs.as_ptr(), out.as_ptr()) })
}

/// One partition given as its witness only, borrowed: submit it through an
/// [`Engine::scope`](crate::Engine::scope) with [`Scope::submit_witness`](crate::Scope::submit_witness),
/// which does not return before the engine has finished reading these slices. The counts must
/// be the constraint system's (else `ErrorKind::Mismatch` naming both).
#[derive(Clone, Copy, Debug)]
pub struct WitnessPartition<'a> {
    pub scalar_form: ScalarForm,
    /// The inputs, `inputs[0]` = ONE.
    pub inputs: &'a [Fr],
    pub aux: &'a [Fr],
    /// The blinding scalars; None = drawn from the OS CSPRNG (what production wants).
    pub r: Option<&'a Fr>,
    pub s: Option<&'a Fr>,
    /// Higher first (0..7); FIFO within a priority.
    pub priority: i32,
    /// Echoed in the job's [`Outcome`](crate::Outcome) and its trace events.
    pub tag: u64,
}

impl<'a> WitnessPartition<'a> {
    /// The public inputs (ONE excluded), as [`verify`](crate::verify) takes them.
    pub fn public(&self) -> &'a [Fr] {
        self.inputs.get(1..).unwrap_or(&[])
    }

    /// The C struct pointing into these slices (its lengths are the slices' own, so nothing
    /// the library reads lies outside them). `release` is left unset.
    pub(crate) fn to_raw(self) -> sys::cuzk_witness_partition {
        sys::cuzk_witness_partition {
            struct_size: std::mem::size_of::<sys::cuzk_witness_partition>() as u32,
            scalar_form: self.scalar_form.raw(),
            inputs: self.inputs.as_ptr(),
            num_inputs: self.inputs.len() as u64,
            aux: self.aux.as_ptr(),
            num_aux: self.aux.len() as u64,
            r: self.r.map_or(ptr::null(), |r| r as *const Fr),
            s: self.s.map_or(ptr::null(), |s| s as *const Fr),
            priority: self.priority,
            reserved: 0,
            user_tag: self.tag,
            release: None,
            release_user: ptr::null_mut(),
        }
    }
}
