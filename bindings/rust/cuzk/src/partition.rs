//! A partition's witness as borrowed slices ([`Partition`]), its sizes ([`Shape`]) and the
//! checks that make handing its pointers to C sound: the library reads `abc_len` scalars from
//! each of a, b and c and `ceil(n / 64)` words from each density bitmap, so the slices must be
//! at least that long — checked here, not trusted.
use std::ptr;

use cuzk_sys as sys;

use crate::error::{invalid, Result};
use crate::Fr;

/// How the scalars are encoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ScalarForm {
    /// x·2^256 mod r, as blstrs/bellperson keep scalars in memory.
    #[default]
    Montgomery,
    /// x itself, below r (32-byte little-endian), as circom and snarkjs write them.
    Canonical,
}

impl ScalarForm {
    pub(crate) fn raw(self) -> i32 {
        match self {
            ScalarForm::Montgomery => sys::CUZK_FR_MONTGOMERY,
            ScalarForm::Canonical => sys::CUZK_FR_CANONICAL,
        }
    }
    pub(crate) fn from_raw(v: i32) -> ScalarForm {
        if v == sys::CUZK_FR_CANONICAL {
            ScalarForm::Canonical
        } else {
            ScalarForm::Montgomery
        }
    }
}

/// 64-bit words of a bitmap of `bits` bits.
pub fn density_words(bits: usize) -> usize {
    bits.div_ceil(64)
}

/// The sizes of a partition: constraint evaluations (input constraints included), inputs
/// (ONE included) and aux variables. The density bitmaps follow from them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Shape {
    pub abc_len: usize,
    pub num_inputs: usize,
    pub num_aux: usize,
}

impl Shape {
    /// Scalars then density words, in the order a witness block lays them out:
    /// (scalars, words), or None when the counts overflow.
    pub(crate) fn counts(&self) -> Option<(usize, usize)> {
        let frs = self.abc_len.checked_mul(3)?.checked_add(self.num_inputs)?.checked_add(self.num_aux)?;
        let words = density_words(self.num_aux).checked_mul(2)?.checked_add(density_words(self.num_inputs))?;
        Some((frs, words))
    }

    /// Bytes of one block holding every buffer of a partition of this shape.
    pub fn bytes(&self) -> Option<usize> {
        let (frs, words) = self.counts()?;
        frs.checked_mul(std::mem::size_of::<Fr>())?.checked_add(words.checked_mul(8)?)
    }
}

/// One partition's witness, borrowed, exactly as bellperson's synthesis produces it (see
/// docs/formats.md): submit it through an [`Engine::scope`](crate::Engine::scope), which
/// does not return before the engine has finished reading these slices.
#[derive(Clone, Copy, Debug)]
pub struct Partition<'a> {
    pub scalar_form: ScalarForm,
    /// Constraint evaluations; all three the same length.
    pub a: &'a [Fr],
    pub b: &'a [Fr],
    pub c: &'a [Fr],
    /// The inputs, `inputs[0]` = ONE.
    pub inputs: &'a [Fr],
    pub aux: &'a [Fr],
    /// `aux.len()` bits, LSB first in 64-bit words.
    pub a_aux_density: &'a [u64],
    /// `inputs.len()` bits.
    pub b_input_density: &'a [u64],
    /// `aux.len()` bits.
    pub b_aux_density: &'a [u64],
    /// The blinding scalars; None = drawn from the OS CSPRNG (what production wants).
    pub r: Option<&'a Fr>,
    pub s: Option<&'a Fr>,
    /// Higher first (0..7); FIFO within a priority.
    pub priority: i32,
    /// Echoed in the job's [`Outcome`](crate::Outcome) and its trace events.
    pub tag: u64,
}

impl<'a> Partition<'a> {
    pub fn shape(&self) -> Shape {
        Shape { abc_len: self.a.len(), num_inputs: self.inputs.len(), num_aux: self.aux.len() }
    }

    /// The public inputs (ONE excluded), as [`verify`](crate::verify) takes them.
    pub fn public(&self) -> &'a [Fr] {
        self.inputs.get(1..).unwrap_or(&[])
    }

    /// The C struct pointing into these slices, after checking every length the library
    /// will trust. `release` is left unset; the caller adds it where it wants one.
    pub(crate) fn to_raw(self) -> Result<sys::cuzk_partition> {
        let n = self.a.len();
        if self.b.len() != n || self.c.len() != n {
            return Err(invalid(format!("a, b and c must have one length: {}, {}, {}", n, self.b.len(), self.c.len())));
        }
        for (name, bm, bits) in [
            ("a_aux_density", self.a_aux_density, self.aux.len()),
            ("b_input_density", self.b_input_density, self.inputs.len()),
            ("b_aux_density", self.b_aux_density, self.aux.len()),
        ] {
            if bm.len() < density_words(bits) {
                return Err(invalid(format!(
                    "{name} has {} words, {} bits need {}",
                    bm.len(),
                    bits,
                    density_words(bits)
                )));
            }
        }
        Ok(sys::cuzk_partition {
            struct_size: std::mem::size_of::<sys::cuzk_partition>() as u32,
            scalar_form: self.scalar_form.raw(),
            a: self.a.as_ptr(),
            b: self.b.as_ptr(),
            c: self.c.as_ptr(),
            abc_len: n as u64,
            inputs: self.inputs.as_ptr(),
            num_inputs: self.inputs.len() as u64,
            aux: self.aux.as_ptr(),
            num_aux: self.aux.len() as u64,
            a_aux_density: self.a_aux_density.as_ptr(),
            b_input_density: self.b_input_density.as_ptr(),
            b_aux_density: self.b_aux_density.as_ptr(),
            r: self.r.map_or(ptr::null(), |r| r as *const Fr),
            s: self.s.map_or(ptr::null(), |s| s as *const Fr),
            priority: self.priority,
            reserved: 0,
            user_tag: self.tag,
            release: None,
            release_user: ptr::null_mut(),
        })
    }
}
