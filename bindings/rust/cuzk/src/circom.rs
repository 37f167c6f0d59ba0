//! circom tooling (`cuzk/r1cs.h`): load a .r1cs circuit and a .wtns witness, turn them into
//! a partition, and make a TEST-ONLY key pair. For tests, examples and circom hosts; a
//! Filecoin host synthesizes its partitions itself.
use std::path::Path;
use std::ptr::{self, NonNull};
use std::slice;

use cuzk_sys as sys;

use crate::error::{check, invalid, Result};
use crate::partition::{density_words, Partition, ScalarForm};
use crate::{cpath, Fr};

/// A loaded circom circuit (read-only).
pub struct Circuit {
    raw: NonNull<sys::cuzk_r1cs>,
}

// SAFETY: r1cs.h: a loaded cuzk_r1cs is read-only and every call on it is thread-safe.
unsafe impl Send for Circuit {}
unsafe impl Sync for Circuit {}

impl Circuit {
    /// Loads a circom .r1cs file (format version 1, BLS12-381's r).
    pub fn load(path: impl AsRef<Path>) -> Result<Circuit> {
        let p = cpath(path.as_ref())?;
        let mut raw = ptr::null_mut();
        check(unsafe { sys::cuzk_r1cs_load(p.as_ptr(), &mut raw) })?;
        Ok(Circuit { raw: NonNull::new(raw).ok_or_else(|| invalid("cuzk_r1cs_load returned none"))? })
    }

    /// Checks `witness` (wire order, canonical, ONE first: as [`load_wtns`] gives it) against
    /// every constraint and lays it out as a partition in the library's memory (canonical
    /// form). `ErrorKind::Invalid` names the first failing constraint.
    pub fn partition(&self, witness: &[Fr]) -> Result<CircomPartition> {
        // SAFETY: all-zero is a valid cuzk_partition (null pointers, no release).
        let mut p: sys::cuzk_partition = unsafe { std::mem::zeroed() };
        p.struct_size = std::mem::size_of::<sys::cuzk_partition>() as u32;
        check(unsafe { sys::cuzk_r1cs_partition(self.raw.as_ptr(), witness.as_ptr(), witness.len() as u64, &mut p) })?;
        Ok(CircomPartition { raw: p })
    }
}

impl Drop for Circuit {
    fn drop(&mut self) {
        unsafe { sys::cuzk_r1cs_free(self.raw.as_ptr()) }
    }
}

/// A partition in the library's memory, from [`Circuit::partition`]; released on drop.
/// [`CircomPartition::view`] borrows it for [`Engine::scope`](crate::Engine::scope), and
/// [`Witness::from_partition`](crate::Witness::from_partition) copies it.
pub struct CircomPartition {
    raw: sys::cuzk_partition,
}

// SAFETY: the library's buffers, read-only here and released once (Drop); r1cs.h lets any
// thread call the release (the engine calls it on its own threads).
unsafe impl Send for CircomPartition {}
unsafe impl Sync for CircomPartition {}

impl CircomPartition {
    /// The buffers as a borrowed [`Partition`] with this tag.
    pub fn view(&self, tag: u64) -> Partition<'_> {
        let p = &self.raw;
        let frs = |x: *const Fr, n: u64| -> &[Fr] {
            if n == 0 {
                &[]
            } else {
                unsafe { slice::from_raw_parts(x, n as usize) }
            }
        };
        let words = |x: *const u64, bits: u64| -> &[u64] {
            let n = density_words(bits as usize);
            if n == 0 {
                &[]
            } else {
                unsafe { slice::from_raw_parts(x, n) }
            }
        };
        // SAFETY: cuzk_r1cs_partition filled these pointers with buffers of exactly these
        // counts, alive until the release in Drop.
        Partition {
            scalar_form: ScalarForm::from_raw(p.scalar_form),
            a: frs(p.a, p.abc_len),
            b: frs(p.b, p.abc_len),
            c: frs(p.c, p.abc_len),
            inputs: frs(p.inputs, p.num_inputs),
            aux: frs(p.aux, p.num_aux),
            a_aux_density: words(p.a_aux_density, p.num_aux),
            b_input_density: words(p.b_input_density, p.num_inputs),
            b_aux_density: words(p.b_aux_density, p.num_aux),
            r: None,
            s: None,
            priority: 0,
            tag,
        }
    }
}

impl Drop for CircomPartition {
    fn drop(&mut self) {
        if let Some(release) = self.raw.release {
            unsafe { release(self.raw.release_user) }
        }
    }
}

/// Reads a snarkjs .wtns file (version 2): canonical scalars in wire order, ONE first.
pub fn load_wtns(path: impl AsRef<Path>) -> Result<Vec<Fr>> {
    let p = cpath(path.as_ref())?;
    let (mut vals, mut n) = (ptr::null_mut(), 0u64);
    check(unsafe { sys::cuzk_wtns_load(p.as_ptr(), &mut vals, &mut n) })?;
    let v = if n == 0 { Vec::new() } else { unsafe { slice::from_raw_parts(vals, n as usize) }.to_vec() };
    unsafe { sys::cuzk_free(vals.cast()) };
    Ok(v)
}

/// TEST ONLY — NEVER FOR PRODUCTION KEYS: writes a proving key (`params`) and a verifying
/// key (`vk`) for `circuit` from toxic waste derived from `seed`, so anyone who knows the
/// seed can forge proofs. Either path may be None to skip it.
pub fn insecure_test_setup(circuit: &Circuit, seed: &[u8; 32], params: Option<&Path>, vk: Option<&Path>) -> Result<()> {
    let params = params.map(cpath).transpose()?;
    let vk = vk.map(cpath).transpose()?;
    let ptr_of = |c: &Option<std::ffi::CString>| c.as_ref().map_or(ptr::null(), |c| c.as_ptr());
    check(unsafe { sys::cuzk_setup(circuit.raw.as_ptr(), seed.as_ptr(), ptr_of(&params), ptr_of(&vk)) })
}
