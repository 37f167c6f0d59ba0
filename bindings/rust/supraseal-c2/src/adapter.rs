//! The better path for new code: bellperson's synthesized partitions straight into libcuzk's
//! asynchronous engine (`cuzk::Engine`: submit each partition as its synthesis finishes, take
//! results as they come) instead of one blocking batch. This module turns a bellperson-style
//! `ProvingAssignment` — its a, b, c, input and aux vectors and three density bitmaps — into a
//! borrowed `cuzk::Partition`, without copying. docs/filecoin.md shows it in a pipeline.
//!
//! bellperson keeps `ProvingAssignment`'s fields to itself, but with its `cuda-supraseal`
//! feature it makes an [`Assignment`] from one (`Assignment::from(&proving_assignment)`);
//! [`ProvingAssignment::from_assignment`] reads that back. A host with its own synthesis fills
//! [`ProvingAssignment`] from its vectors directly.
use std::mem::{align_of, size_of};
use std::slice;

use cuzk::{Error, ErrorKind, Fr, Partition, ScalarForm};

use crate::Assignment;

/// One partition's witness, borrowed, as bellperson's `ProvingAssignment` holds it: blstrs
/// scalars `S` in Montgomery form, bitmaps as bitvec's raw words (`BitVec<usize, Lsb0>`).
#[derive(Clone, Copy, Debug)]
pub struct ProvingAssignment<'a, S> {
    /// Constraint evaluations (input constraints included); all three the same length.
    pub a: &'a [S],
    pub b: &'a [S],
    pub c: &'a [S],
    /// `input_assignment[0]` is ONE.
    pub input_assignment: &'a [S],
    pub aux_assignment: &'a [S],
    /// `aux_assignment.len()` bits.
    pub a_aux_density: &'a [usize],
    /// `input_assignment.len()` bits.
    pub b_input_density: &'a [usize],
    /// `aux_assignment.len()` bits.
    pub b_aux_density: &'a [usize],
}

fn scalars<S>(v: &[S]) -> &[Fr] {
    // SAFETY: S is 32 bytes with alignment >= 8 (checked by the caller): the layout of Fr.
    unsafe { slice::from_raw_parts(v.as_ptr() as *const Fr, v.len()) }
}

fn words(v: &[usize]) -> &[u64] {
    // SAFETY: usize is u64 on the 64-bit targets this crate builds for (lib.rs).
    unsafe { slice::from_raw_parts(v.as_ptr() as *const u64, v.len()) }
}

fn check_scalar<S>() -> Result<(), Error> {
    if size_of::<S>() != size_of::<Fr>() || align_of::<S>() < align_of::<Fr>() {
        let why = format!(
            "a scalar is {} bytes aligned {}; blstrs scalars are 32 aligned 8",
            size_of::<S>(),
            align_of::<S>()
        );
        return Err(Error::new(ErrorKind::Invalid, why));
    }
    Ok(())
}

impl<'a, S> ProvingAssignment<'a, S> {
    /// The partition over these vectors, with optional blinding scalars (None: libcuzk draws
    /// them from the OS, what production wants), priority 0 and `tag`. Lengths are checked
    /// when it is submitted (`cuzk::Scope::submit`, `cuzk::Witness::from_partition`).
    pub fn partition(&self, r: Option<&'a S>, s: Option<&'a S>, tag: u64) -> Result<Partition<'a>, Error> {
        check_scalar::<S>()?;
        let one = |x: Option<&'a S>| x.map(|x| &scalars(slice::from_ref(x))[0]);
        Ok(Partition {
            scalar_form: ScalarForm::Montgomery,
            a: scalars(self.a),
            b: scalars(self.b),
            c: scalars(self.c),
            inputs: scalars(self.input_assignment),
            aux: scalars(self.aux_assignment),
            a_aux_density: words(self.a_aux_density),
            b_input_density: words(self.b_input_density),
            b_aux_density: words(self.b_aux_density),
            r: one(r),
            s: one(s),
            priority: 0,
            tag,
        })
    }

    /// The vectors an [`Assignment`] points to, after the checks `generate_groth16_proofs`
    /// makes (no NULL buffer, bit lengths equal to the assignment sizes, popcounts equal to
    /// the bitmaps'); `ErrorKind::Mismatch` names the numbers that differ.
    ///
    /// # Safety
    /// Every pointer of `a` must be valid for its count (and each bitmap for its bit length)
    /// for all of `'a`: the vectors the Assignment was made from must outlive the result.
    pub unsafe fn from_assignment(a: &Assignment<S>) -> Result<ProvingAssignment<'a, S>, Error> {
        crate::prove::check(a).map_err(|(code, why)| Error::new(ErrorKind::from_code(code), why))?;
        let v = |p: *const S, n: usize| if n == 0 { &[][..] } else { slice::from_raw_parts(p, n) };
        let bits = |p: *const usize, n: usize| if n == 0 { &[][..] } else { slice::from_raw_parts(p, n.div_ceil(64)) };
        Ok(ProvingAssignment {
            a: v(a.a, a.abc_size),
            b: v(a.b, a.abc_size),
            c: v(a.c, a.abc_size),
            input_assignment: v(a.inp_assignment_data, a.inp_assignment_size),
            aux_assignment: v(a.aux_assignment_data, a.aux_assignment_size),
            a_aux_density: bits(a.a_aux_density, a.a_aux_bit_len),
            b_input_density: bits(a.b_inp_density, a.b_inp_bit_len),
            b_aux_density: bits(a.b_aux_density, a.b_aux_bit_len),
        })
    }
}
