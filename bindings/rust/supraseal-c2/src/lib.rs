//! supraseal-c2 0.1's public API — [`SRS`], [`cuda::Error`], [`Assignment`],
//! [`generate_groth16_proofs`] and the older [`generate_groth16_proof`] — proving on libcuzk's
//! engine. bellperson (feature `cuda-supraseal`) hands every batch of synthesized partitions
//! to this seam, so one `[patch.crates-io]` entry switches rust-fil-proofs, filecoin-ffi,
//! Lotus and Curio to libcuzk with no line of theirs changed (docs/filecoin.md).
//!
//! Beyond supraseal's API: [`try_generate_groth16_proofs`] (an `Err` instead of a panic),
//! [`engine_stats`] (libcuzk's counters) and [`adapter`] (bellperson's partitions as
//! `cuzk::Partition`s, for new code that uses the engine's asynchronous API).
//!
//! Scalars `S` are blstrs scalars in memory (Montgomery form, 32 bytes); a proof `PR` is
//! bellperson's in-memory `Proof<Bls12>` (384 bytes: A, B, C affine as blst keeps them, the
//! point at infinity all zeros). Both are checked by size and alignment on every call.
#[cfg(not(all(unix, target_pointer_width = "64")))]
compile_error!("supraseal-c2 on libcuzk needs a 64-bit Unix target (density bitmaps are 64-bit words)");

pub mod adapter;
pub mod cuda;
mod engine;
mod point;
mod prove;
mod srs;

pub use engine::engine_stats;
pub use srs::SRS;

/// One synthesized partition, as bellperson builds it from its `ProvingAssignment`: 17
/// machine words, the layout of supraseal's C `Assignment` (and of
/// `supraseal_c2_assignment` in libcuzk-supraseal's header). Every pointer is borrowed by
/// the proving call only.
#[repr(C)]
pub struct Assignment<Scalar> {
    // Density of queries: bitmaps LSB first in 64-bit words, their bit lengths and popcounts.
    pub a_aux_density: *const usize,
    pub a_aux_bit_len: usize,
    pub a_aux_popcount: usize,

    pub b_inp_density: *const usize,
    pub b_inp_bit_len: usize,
    pub b_inp_popcount: usize,

    pub b_aux_density: *const usize,
    pub b_aux_bit_len: usize,
    pub b_aux_popcount: usize,

    // Evaluations of the A, B, C polynomials (input constraints included), abc_size each.
    pub a: *const Scalar,
    pub b: *const Scalar,
    pub c: *const Scalar,
    pub abc_size: usize,

    // Assignments of variables; the first input is ONE.
    pub inp_assignment_data: *const Scalar,
    pub inp_assignment_size: usize,

    pub aux_assignment_data: *const Scalar,
    pub aux_assignment_size: usize,
}

/// Proves `provers[i]` with `r_s[i]`, `s_s[i]` into `proofs[i]` on the process engine; returns
/// when all are done. Every Assignment is checked before any is submitted. Panics with
/// libcuzk's detail on any failure ("generate_groth16_proofs: prover 3 of 10: a_aux bit
/// length 69 and b_aux bit length 70, aux assignment size 70"), as supraseal does.
pub fn generate_groth16_proofs<S, PR>(provers: &[Assignment<S>], r_s: &[S], s_s: &[S], proofs: &mut [PR], srs: &SRS) {
    if let Err(err) = try_generate_groth16_proofs(provers, r_s, s_s, proofs, srs) {
        panic!("{}", String::from(err));
    }
}

/// [`generate_groth16_proofs`] without the panic: on `Err` (its `code` a `CUZK_E*` value,
/// its text naming the prover and the numbers) every proof is zeroed (unless `S` or `PR` is
/// not the size bellperson's types have: then nothing is touched), and no partition of the
/// call is in flight any more.
pub fn try_generate_groth16_proofs<S, PR>(
    provers: &[Assignment<S>],
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
) -> Result<(), cuda::Error> {
    prove::prove(provers, r_s, s_s, proofs, srs)
}

/// The entry point older bellperson releases call: `num_circuits` partitions of one circuit,
/// given as per-circuit pointers, sharing one set of density bitmaps. It builds one
/// [`Assignment`] per circuit and proves them as [`generate_groth16_proofs`] does (and, like
/// supraseal, panics on a slice whose length is not `num_circuits`).
#[allow(clippy::too_many_arguments)]
pub fn generate_groth16_proof<S, D, PR>(
    ntt_a_scalars: &[*const S],
    ntt_b_scalars: &[*const S],
    ntt_c_scalars: &[*const S],
    ntt_scalars_actual_size: usize,
    input_assignments: &[*const S],
    aux_assignments: &[*const S],
    input_assignments_size: usize,
    aux_assignments_size: usize,
    a_aux_density_bv: &[D],
    b_g1_input_density_bv: &[D],
    b_g1_aux_density_bv: &[D],
    a_aux_total_density: usize,
    b_g1_input_total_density: usize,
    b_g1_aux_total_density: usize,
    num_circuits: usize,
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
) {
    for (name, len) in [
        ("ntt_a_scalars", ntt_a_scalars.len()),
        ("ntt_b_scalars", ntt_b_scalars.len()),
        ("ntt_c_scalars", ntt_c_scalars.len()),
        ("input_assignments", input_assignments.len()),
        ("aux_assignments", aux_assignments.len()),
        ("r_s", r_s.len()),
        ("s_s", s_s.len()),
        ("proofs", proofs.len()),
    ] {
        assert_eq!(len, num_circuits, "generate_groth16_proof: {name} has {len} entries for {num_circuits} circuits");
    }
    assert!(std::mem::size_of::<D>() == 8, "generate_groth16_proof: only 64-bit bit-vector words are supported");
    // The bitmaps are read by bit length: they must hold that many bits.
    for (name, bv, bits) in [
        ("a_aux_density_bv", a_aux_density_bv.len(), aux_assignments_size),
        ("b_g1_input_density_bv", b_g1_input_density_bv.len(), input_assignments_size),
        ("b_g1_aux_density_bv", b_g1_aux_density_bv.len(), aux_assignments_size),
    ] {
        assert!(bv * 64 >= bits, "generate_groth16_proof: {name} has {bv} words for {bits} bits");
    }
    let provers: Vec<Assignment<S>> = (0..num_circuits)
        .map(|i| Assignment {
            a_aux_density: a_aux_density_bv.as_ptr() as *const usize,
            a_aux_bit_len: aux_assignments_size,
            a_aux_popcount: a_aux_total_density,
            b_inp_density: b_g1_input_density_bv.as_ptr() as *const usize,
            b_inp_bit_len: input_assignments_size,
            b_inp_popcount: b_g1_input_total_density,
            b_aux_density: b_g1_aux_density_bv.as_ptr() as *const usize,
            b_aux_bit_len: aux_assignments_size,
            b_aux_popcount: b_g1_aux_total_density,
            a: ntt_a_scalars[i],
            b: ntt_b_scalars[i],
            c: ntt_c_scalars[i],
            abc_size: ntt_scalars_actual_size,
            inp_assignment_data: input_assignments[i],
            inp_assignment_size: input_assignments_size,
            aux_assignment_data: aux_assignments[i],
            aux_assignment_size: aux_assignments_size,
        })
        .collect();
    generate_groth16_proofs(&provers, r_s, s_s, proofs, srs);
}
