//! One batch: every Assignment checked (nothing is submitted if one does not fit), each
//! submitted as a partition with its r and s, all results awaited (the host's buffers are
//! borrowed until the last job is done, failed or not), proofs decompressed into memory form.
use std::mem::{align_of, size_of};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::time::Duration;

use cuzk_sys as sys;

use crate::cuda::Error;
use crate::engine::{engine, last_error, strerror, Done};
use crate::point::{proof_from_bytes, MemProof};
use crate::{Assignment, SRS};

const WHO: &str = "generate_groth16_proofs";

fn popcount(bits: *const usize, n: usize) -> usize {
    // SAFETY (caller): the bitmap holds at least ceil(n / 64) words, as supraseal requires.
    let words = unsafe { std::slice::from_raw_parts(bits, n.div_ceil(64)) };
    let mut c: usize = words[..n / 64].iter().map(|w| w.count_ones() as usize).sum();
    if n % 64 != 0 {
        c += (words[n / 64] & ((1usize << (n % 64)) - 1)).count_ones() as usize;
    }
    c
}

/// Whether an Assignment fits itself; else the code (CUZK_EINVAL, CUZK_EMISMATCH) and why.
pub(crate) fn check<S>(a: &Assignment<S>) -> Result<(), (i32, String)> {
    let null_aux = a.aux_assignment_size != 0 && a.aux_assignment_data.is_null();
    if a.a.is_null() || a.b.is_null() || a.c.is_null() || a.inp_assignment_data.is_null() || null_aux {
        return Err((sys::CUZK_EINVAL, "a NULL buffer (a, b, c or an assignment)".into()));
    }
    if a.a_aux_density.is_null() || a.b_inp_density.is_null() || a.b_aux_density.is_null() {
        return Err((sys::CUZK_EINVAL, "a NULL density bitmap".into()));
    }
    // supraseal sizes the bitmaps by the assignments; a mismatch means a stale Assignment
    if a.a_aux_bit_len != a.aux_assignment_size || a.b_aux_bit_len != a.aux_assignment_size {
        return Err((
            sys::CUZK_EMISMATCH,
            format!(
                "a_aux bit length {} and b_aux bit length {}, aux assignment size {}",
                a.a_aux_bit_len, a.b_aux_bit_len, a.aux_assignment_size
            ),
        ));
    }
    if a.b_inp_bit_len != a.inp_assignment_size {
        let why = format!("b_inp bit length {}, input assignment size {}", a.b_inp_bit_len, a.inp_assignment_size);
        return Err((sys::CUZK_EMISMATCH, why));
    }
    for (name, bits, n, pop) in [
        ("a_aux", a.a_aux_density, a.a_aux_bit_len, a.a_aux_popcount),
        ("b_inp", a.b_inp_density, a.b_inp_bit_len, a.b_inp_popcount),
        ("b_aux", a.b_aux_density, a.b_aux_bit_len, a.b_aux_popcount),
    ] {
        let c = popcount(bits, n);
        if c != pop {
            return Err((sys::CUZK_EMISMATCH, format!("{name} popcount {pop}, its bitmap has {c} bits set")));
        }
    }
    Ok(())
}

/// The partition of one Assignment (checked), its r and s and tag left unset.
fn to_partition<S>(a: &Assignment<S>) -> Result<sys::cuzk_partition, (i32, String)> {
    check(a)?;
    Ok(sys::cuzk_partition {
        struct_size: size_of::<sys::cuzk_partition>() as u32,
        scalar_form: sys::CUZK_FR_MONTGOMERY, // blstrs scalars in memory
        a: a.a as *const sys::cuzk_fr,
        b: a.b as *const sys::cuzk_fr,
        c: a.c as *const sys::cuzk_fr,
        abc_len: a.abc_size as u64,
        inputs: a.inp_assignment_data as *const sys::cuzk_fr,
        num_inputs: a.inp_assignment_size as u64,
        aux: a.aux_assignment_data as *const sys::cuzk_fr,
        num_aux: a.aux_assignment_size as u64,
        a_aux_density: a.a_aux_density as *const u64,
        b_input_density: a.b_inp_density as *const u64,
        b_aux_density: a.b_aux_density as *const u64,
        r: std::ptr::null(),
        s: std::ptr::null(),
        priority: 0,
        reserved: 0,
        user_tag: 0,
        release: None,
        release_user: std::ptr::null_mut(),
    })
}

/// The types the caller instantiated with must be what the C layouts say: 32-byte scalars,
/// 384-byte proofs, each at least 8-byte aligned (libcuzk reads 64-bit limbs).
fn check_types<S, PR>() -> Result<(), Error> {
    if size_of::<S>() != 32 || align_of::<S>() < 8 {
        let why = format!(
            "{WHO}: a scalar is {} bytes, aligned {}; blstrs scalars are 32, aligned 8",
            size_of::<S>(),
            align_of::<S>()
        );
        return Err(Error::new(sys::CUZK_EINVAL, why));
    }
    if size_of::<PR>() != size_of::<MemProof>() || align_of::<PR>() < 8 {
        let why = format!(
            "{WHO}: a proof is {} bytes, aligned {}; Proof<Bls12> is 384, aligned 8",
            size_of::<PR>(),
            align_of::<PR>()
        );
        return Err(Error::new(sys::CUZK_EINVAL, why));
    }
    Ok(())
}

pub(crate) fn prove<S, PR>(
    provers: &[Assignment<S>],
    r_s: &[S],
    s_s: &[S],
    proofs: &mut [PR],
    srs: &SRS,
) -> Result<(), Error> {
    check_types::<S, PR>()?;
    // SAFETY: PR is 384 bytes aligned 8 (checked), the size and alignment of a MemProof.
    let out = unsafe { std::slice::from_raw_parts_mut(proofs.as_mut_ptr() as *mut MemProof, proofs.len()) };
    out.fill([0; 48]); // whatever fails below, no stale or half-written proof is left
    let n = provers.len();
    for (name, len) in [("r_s", r_s.len()), ("s_s", s_s.len()), ("proofs", out.len())] {
        if len != n {
            return Err(Error::new(sys::CUZK_EINVAL, format!("{WHO}: {name} has {len} entries for {n} provers")));
        }
    }
    let key = srs
        .key()
        .ok_or_else(|| Error::new(sys::CUZK_EINVAL, format!("{WHO}: the SRS holds no key (SRS::default())")))?;
    if n == 0 {
        return Ok(());
    }
    let mut parts = Vec::with_capacity(n);
    for (i, a) in provers.iter().enumerate() {
        let mut p =
            to_partition(a).map_err(|(code, why)| Error::new(code, format!("{WHO}: prover {i} of {n}: {why}")))?;
        p.r = &r_s[i] as *const S as *const sys::cuzk_fr;
        p.s = &s_s[i] as *const S as *const sys::cuzk_fr;
        parts.push(p);
    }
    let results = submit_and_wait(&parts, key.raw.as_ptr())?;
    let res = results.and_then(|res| {
        for (i, r) in res.iter().enumerate() {
            if r.status != sys::CUZK_OK {
                let detail = unsafe { std::ffi::CStr::from_ptr(r.detail.as_ptr()) }.to_string_lossy();
                return Err(Error::new(
                    r.status,
                    format!("{WHO}: prover {i} of {n}: {}: {detail}", strerror(r.status)),
                ));
            }
            out[i] = proof_from_bytes(&r.proof).map_err(|why| {
                Error::new(sys::CUZK_EFORMAT, format!("{WHO}: prover {i} of {n}: the proof does not decode: {why}"))
            })?;
        }
        Ok(())
    });
    if res.is_err() {
        out.fill([0; 48]); // no half-written batch
    }
    res
}

/// Submits every partition and returns when none is in flight any more: Ok(results in
/// submission order) when all were submitted, Err(the submit error) otherwise (the jobs
/// already submitted are canceled and awaited first). The outer Err is for the engine itself.
fn submit_and_wait(
    parts: &[sys::cuzk_partition],
    srs: *mut sys::cuzk_srs,
) -> Result<Result<Vec<sys::cuzk_result>, Error>, Error> {
    let e = engine()?; // made already: a key exists
    let n = parts.len();
    let (tx, rx) = channel::<Done>();
    let mut got: Vec<Option<Box<sys::cuzk_result>>> = (0..n).map(|_| None).collect();
    fn store((i, r): Done, got: &mut [Option<Box<sys::cuzk_result>>]) {
        got[i] = Some(r);
    }
    let mut jobs = Vec::with_capacity(n);
    let mut failed = None;
    for (i, p) in parts.iter().enumerate() {
        let mut p = *p;
        p.user_tag = e.expect(&tx, i);
        let mut job = 0;
        let rc = loop {
            let rc = unsafe { sys::cuzk_submit_partition(e.raw(), srs, &p, &mut job) };
            if rc != sys::CUZK_EAGAIN {
                break rc;
            }
            // The engine's queue is full: wait for one of ours to finish (or a moment, if the
            // queue is full of other calls' jobs), then try again.
            match rx.recv_timeout(Duration::from_millis(10)) {
                Ok(d) => store(d, &mut got),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => unreachable!("tx is held here"),
            }
        };
        if rc != sys::CUZK_OK {
            e.forget(p.user_tag);
            let why = format!("{WHO}: prover {i} of {n}: {}: {}", strerror(rc), last_error());
            failed = Some(Error::new(rc, why));
            for j in &jobs {
                unsafe { sys::cuzk_cancel(e.raw(), *j) }; // too late is fine
            }
            break;
        }
        jobs.push(job);
    }
    let submitted = jobs.len();
    while got[..submitted].iter().any(Option::is_none) {
        store(rx.recv().expect("tx is held here"), &mut got);
    }
    Ok(match failed {
        Some(err) => Err(err),
        None => Ok(got.into_iter().map(|r| *r.expect("every result is in")).collect()),
    })
}
