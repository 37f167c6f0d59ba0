// supraseal-c2's API on libcuzk against libcuzk's own API (the cuzk crate) on the same
// partitions, r and s: in-memory proofs on the curves, compressing to libcuzk's bytes, valid;
// a batch of 10; the older entry point; the adapter; errors (panic text, try_'s Err); SRS
// clone/drop/evict across threads; the layouts bellperson relies on. The fixture is made by
// tests/common (no fixture is a failure, never a skip).
#[path = "../../cuzk/tests/common/mod.rs"]
mod common;
mod support;

use std::mem::{align_of, offset_of, size_of, transmute_copy};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;
use std::sync::Once;

use common::fixture;
use support::*;
use supraseal_c2::{
    cuda, generate_groth16_proof, generate_groth16_proofs, try_generate_groth16_proofs, Assignment, SRS,
};

/// The process engine comes from the environment at the first SRS::try_new: a CPU engine
/// that leaves the second core to the oracle.
fn srs() -> SRS {
    static ENV: Once = Once::new();
    ENV.call_once(|| {
        std::env::set_var("CUZK_BACKEND", "cpu");
        std::env::set_var("CUZK_CPU_THREADS", "1");
        std::env::set_var("CUZK_WORKERS_PER_DEVICE", "2");
    });
    SRS::try_new(fixture().params(), false).expect("SRS::try_new")
}

fn addr(s: &SRS) -> usize {
    unsafe { transmute_copy(s) }
}

fn rs(rng: &mut Rng, n: usize) -> Vec<(Scalar, Scalar)> {
    (0..n).map(|_| (rng.scalar(), rng.scalar())).collect()
}

#[test]
fn layouts_are_supraseals() {
    type A = Assignment<Scalar>;
    let w = size_of::<usize>();
    assert_eq!(size_of::<A>(), 17 * w);
    let offsets = [
        offset_of!(A, a_aux_density),
        offset_of!(A, a_aux_bit_len),
        offset_of!(A, a_aux_popcount),
        offset_of!(A, b_inp_density),
        offset_of!(A, b_inp_bit_len),
        offset_of!(A, b_inp_popcount),
        offset_of!(A, b_aux_density),
        offset_of!(A, b_aux_bit_len),
        offset_of!(A, b_aux_popcount),
        offset_of!(A, a),
        offset_of!(A, b),
        offset_of!(A, c),
        offset_of!(A, abc_size),
        offset_of!(A, inp_assignment_data),
        offset_of!(A, inp_assignment_size),
        offset_of!(A, aux_assignment_data),
        offset_of!(A, aux_assignment_size),
    ];
    assert_eq!(offsets.to_vec(), (0..17).map(|i| i * w).collect::<Vec<_>>());
    assert_eq!((size_of::<SRS>(), align_of::<SRS>()), (w, w));
    assert_eq!(addr(&SRS::default()), 0);
    assert_eq!((size_of::<Proof>(), offset_of!(Proof, b), offset_of!(Proof, c)), (384, 96, 288));
    assert_eq!((size_of::<Scalar>(), align_of::<Scalar>()), (32, 8));

    // sppark's error: { i32 code; char *str }, the text a C string (made by libc's strdup,
    // freed by Drop with free: a double free or a Rust-allocator pointer would abort here).
    #[repr(C)]
    struct CError {
        code: i32,
        str: *const std::ffi::c_char,
    }
    assert_eq!((size_of::<cuda::Error>(), offset_of!(cuda::Error, code)), (16, 0));
    assert_eq!(size_of::<Option<NonNull<i8>>>(), w);
    let err = SRS::try_new("/no/such/dir/x.params".into(), false).expect_err("a missing file");
    let raw: CError = unsafe { transmute_copy(&err) };
    assert_eq!(raw.code, cuzk::sys::CUZK_EIO);
    let text = unsafe { std::ffi::CStr::from_ptr(raw.str) }.to_str().unwrap().to_string();
    assert!(text.contains("/no/such/dir/x.params"), "{text}");
    assert_eq!(String::from(&err), text);
    assert_eq!(err.to_string(), text);
    assert_eq!(String::from(err), text);
}

#[test]
fn batch_of_10_equals_libcuzk_and_verifies() {
    let mut rng = Rng(seed());
    let parts: Vec<Part> = (0..10).map(|i| Part::new(3 + i, 5 + 2 * i)).collect();
    let refs: Vec<&Part> = parts.iter().collect();
    let rs = rs(&mut rng, 10);
    let want = libcuzk_proofs(&refs, &rs);
    let srs = srs();
    let provers: Vec<_> = parts.iter().map(Part::assignment).collect();
    let (r_s, s_s): (Vec<Scalar>, Vec<Scalar>) = rs.iter().copied().unzip();
    let mut proofs = vec![Proof::junk(); 10];
    generate_groth16_proofs(&provers, &r_s, &s_s, &mut proofs, &srs);
    check_proofs(&proofs, &refs, &want);
    // ten distinct witnesses and blindings give ten distinct proofs
    let mut distinct = want.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 10);

    // try_ proves the same, and an empty batch is a success that touches nothing
    let mut again = vec![Proof::junk(); 3];
    try_generate_groth16_proofs(&provers[4..7], &r_s[4..7], &s_s[4..7], &mut again, &srs).expect("try_");
    assert_eq!(again, proofs[4..7]);
    let none: &mut [Proof] = &mut [];
    try_generate_groth16_proofs::<Scalar, Proof>(&[], &[], &[], none, &srs).expect("n = 0");
    let st = supraseal_c2::engine_stats().expect("the engine exists");
    assert_eq!(st.backend, cuzk::sys::CUZK_BACKEND_CPU);
    assert!(st.completed >= 13, "{} completed", st.completed);
}

#[test]
fn older_entry_point_equals_libcuzk() {
    let mut rng = Rng(seed());
    let parts: Vec<Part> = (0..4).map(|i| Part::new(20 + i, 2 + i)).collect();
    // The older call shares one set of bitmaps: partitions of one circuit have the same.
    for p in &parts[1..] {
        assert_eq!((&p.a_aux, &p.b_inp, &p.b_aux), (&parts[0].a_aux, &parts[0].b_inp, &parts[0].b_aux));
    }
    let refs: Vec<&Part> = parts.iter().collect();
    let rs = rs(&mut rng, 4);
    let want = libcuzk_proofs(&refs, &rs);
    let (r_s, s_s): (Vec<Scalar>, Vec<Scalar>) = rs.iter().copied().unzip();
    let ptrs = |f: fn(&Part) -> &Vec<Scalar>| parts.iter().map(|p| f(p).as_ptr()).collect::<Vec<_>>();
    let p0 = &parts[0];
    let a0 = p0.assignment();
    let mut proofs = vec![Proof::junk(); 4];
    generate_groth16_proof(
        &ptrs(|p| &p.a),
        &ptrs(|p| &p.b),
        &ptrs(|p| &p.c),
        p0.a.len(),
        &ptrs(|p| &p.inputs),
        &ptrs(|p| &p.aux),
        p0.inputs.len(),
        p0.aux.len(),
        &p0.a_aux,
        &p0.b_inp,
        &p0.b_aux,
        a0.a_aux_popcount,
        a0.b_inp_popcount,
        a0.b_aux_popcount,
        4,
        &r_s,
        &s_s,
        &mut proofs,
        &srs(),
    );
    check_proofs(&proofs, &refs, &want);

    // a slice of the wrong length panics, naming it
    let msg = panic_text(|| {
        let mut two = vec![Proof::junk(); 2];
        let one = ptrs(|p| &p.a);
        generate_groth16_proof(
            &one[..2],
            &one[..2],
            &one[..2],
            p0.a.len(),
            &one[..1],
            &one[..2],
            p0.inputs.len(),
            p0.aux.len(),
            &p0.a_aux,
            &p0.b_inp,
            &p0.b_aux,
            0,
            0,
            0,
            2,
            &r_s[..2],
            &s_s[..2],
            &mut two,
            &srs(),
        )
    });
    assert!(msg.contains("input_assignments has 1 entries for 2 circuits"), "{msg}");
}

fn panic_text(f: impl FnOnce()) -> String {
    let err = catch_unwind(AssertUnwindSafe(f)).expect_err("it must panic");
    err.downcast_ref::<String>().cloned().or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string())).unwrap()
}

/// `generate_groth16_proofs` panics with `want` in its text; `try_` gives the same as an Err
/// with `code`; both leave every proof zeroed.
fn expect_failure(provers: &[Assignment<Scalar>], r: &[Scalar], s: &[Scalar], srs: &SRS, code: i32, want: &str) {
    let n = provers.len();
    let mut proofs = vec![Proof::junk(); n];
    let msg = panic_text(|| generate_groth16_proofs(provers, r, s, &mut proofs, srs));
    assert!(msg.contains(want), "panic text '{msg}' lacks '{want}'");
    let mut proofs = vec![Proof::junk(); n];
    let err = try_generate_groth16_proofs(provers, r, s, &mut proofs, srs).expect_err("try_ fails");
    assert_eq!((err.code, String::from(&err)), (code, msg));
    assert!(proofs.iter().all(Proof::is_zero), "a failed call leaves the proofs zeroed");
}

#[test]
fn errors_name_the_prover_and_the_counts() {
    use cuzk::sys::{CUZK_EINVAL, CUZK_EMISMATCH};
    let mut rng = Rng(seed());
    let parts = [Part::new(3, 5), Part::new(4, 6)];
    let srs = srs();
    let rs = rs(&mut rng, 2);
    let (r_s, s_s): (Vec<Scalar>, Vec<Scalar>) = rs.iter().copied().unzip();
    let good = || parts.iter().map(Part::assignment).collect::<Vec<_>>();
    let aux = parts[1].aux.len();

    let mut bad = good();
    bad[1].aux_assignment_size -= 1;
    let want =
        format!("prover 1 of 2: a_aux bit length {aux} and b_aux bit length {aux}, aux assignment size {}", aux - 1);
    expect_failure(&bad, &r_s, &s_s, &srs, CUZK_EMISMATCH, &want);

    let mut bad = good();
    bad[0].b_inp_bit_len += 1;
    let want = format!(
        "prover 0 of 2: b_inp bit length {}, input assignment size {}",
        bad[0].b_inp_bit_len, bad[0].inp_assignment_size
    );
    expect_failure(&bad, &r_s, &s_s, &srs, CUZK_EMISMATCH, &want);

    let mut bad = good();
    bad[1].b_aux_popcount += 1;
    let want = format!(
        "prover 1 of 2: b_aux popcount {}, its bitmap has {} bits set",
        bad[1].b_aux_popcount,
        bad[1].b_aux_popcount - 1
    );
    expect_failure(&bad, &r_s, &s_s, &srs, CUZK_EMISMATCH, &want);

    // Consistent in itself, not with the key: one aux variable fewer (bitmaps and popcounts to
    // match). The engine refuses it at submit with its own counts.
    let mut bad = good();
    let p = &parts[1];
    let (mut a_aux, mut b_aux) = (p.a_aux.clone(), p.b_aux.clone());
    let last = aux - 1;
    a_aux[last / 64] &= !(1 << (last % 64));
    b_aux[last / 64] &= !(1 << (last % 64));
    bad[1].aux_assignment_size = last;
    (bad[1].a_aux_bit_len, bad[1].b_aux_bit_len) = (last, last);
    (bad[1].a_aux_density, bad[1].b_aux_density) = (a_aux.as_ptr(), b_aux.as_ptr());
    bad[1].a_aux_popcount = a_aux.iter().map(|w| w.count_ones() as usize).sum();
    bad[1].b_aux_popcount = b_aux.iter().map(|w| w.count_ones() as usize).sum();
    expect_failure(&bad, &r_s, &s_s, &srs, CUZK_EMISMATCH, "prover 1 of 2: CUZK_EMISMATCH");
    let msg = String::from(try_generate_groth16_proofs(&bad, &r_s, &s_s, &mut [Proof::junk(); 2], &srs).unwrap_err());
    assert!(msg.contains(&last.to_string()), "the key's refusal names the count: {msg}");

    expect_failure(&good(), &r_s[..1], &s_s, &srs, CUZK_EINVAL, "r_s has 1 entries for 2 provers");
    expect_failure(&good(), &r_s, &s_s, &SRS::default(), CUZK_EINVAL, "the SRS holds no key");
    // types that are not bellperson's: the layout is refused, not guessed
    let bytes = [[0u8; 32]; 2];
    let wrong: Vec<Assignment<[u8; 32]>> = good().into_iter().map(|a| unsafe { std::mem::transmute(a) }).collect();
    let err = try_generate_groth16_proofs(&wrong, &bytes, &bytes, &mut [Proof::junk(); 2], &srs).unwrap_err();
    assert!(String::from(err).contains("a scalar is 32 bytes, aligned 1"));
    let err = try_generate_groth16_proofs(&good(), &r_s, &s_s, &mut [[0u64; 47]; 2], &srs).unwrap_err();
    assert!(String::from(err).contains("a proof is 376 bytes"));

    // after all that, the same call with good inputs proves
    let mut proofs = [Proof::junk(); 2];
    generate_groth16_proofs(&good(), &r_s, &s_s, &mut proofs, &srs);
    check_proofs(&proofs, &[&parts[0], &parts[1]], &libcuzk_proofs(&[&parts[0], &parts[1]], &rs));
}

#[test]
fn srs_clone_drop_evict_across_threads() {
    let mut rng = Rng(seed());
    let parts: Vec<Part> = (0..4).map(|i| Part::new(7 + i, 9)).collect();
    let refs: Vec<&Part> = parts.iter().collect();
    let rs = rs(&mut rng, 4);
    let want = libcuzk_proofs(&refs, &rs);
    let _ = srs(); // the environment, once
    let path = fixture().params();

    let cached = SRS::try_new(path.clone(), true).unwrap();
    let shared = SRS::try_new(path.clone(), true).unwrap();
    let own = SRS::try_new(path.clone(), false).unwrap();
    assert_eq!(addr(&cached), addr(&shared), "a cached path is loaded once");
    assert_ne!(addr(&cached), addr(&own), "without cache every call loads");
    assert_eq!(addr(&cached.clone()), addr(&cached), "Clone shares the key");
    drop(shared);

    std::thread::scope(|s| {
        for (i, p) in parts.iter().enumerate() {
            let (srs, want, rs) = (cached.clone(), &want, &rs);
            s.spawn(move || {
                let prove = |key: &SRS| {
                    let mut proof = [Proof::junk()];
                    generate_groth16_proofs(&[p.assignment()], &[rs[i].0], &[rs[i].1], &mut proof, key);
                    check_proofs(&proof, &[p], &want[i..i + 1]);
                };
                let again = srs.clone();
                prove(&again);
                drop(again); // dropped while other threads still prove with the key
                prove(&srs);
            });
        }
        cached.evict(); // while the threads prove with it
    });
    let fresh = SRS::try_new(path.clone(), true).unwrap();
    assert_ne!(addr(&fresh), addr(&cached), "evicted: the cache loads the file again");
    fresh.evict();
    fresh.evict(); // twice, and an empty handle: no effect
    SRS::default().evict();
    let mut proof = [Proof::junk()];
    generate_groth16_proofs(&[parts[0].assignment()], &[rs[0].0], &[rs[0].1], &mut proof, &cached);
    check_proofs(&proof, &refs[..1], &want[..1]);
    drop((cached, own, fresh));
}

#[test]
fn adapter_partitions_prove_on_the_async_engine() {
    use supraseal_c2::adapter::ProvingAssignment;
    let mut rng = Rng(seed());
    let parts = [Part::new(11, 13), Part::new(12, 2)];
    let rs = rs(&mut rng, 2);
    let want = libcuzk_proofs(&[&parts[0], &parts[1]], &rs);
    let asg: Vec<_> = parts.iter().map(Part::assignment).collect();
    let fx = fixture();
    let e = cuzk::Engine::new(&cuzk::Options { backend: cuzk::Backend::Cpu, cpu_threads: 1, ..Default::default() })
        .unwrap();
    let key = e.load_srs(fx.params()).unwrap();
    let got = e.scope(|s| {
        for (i, a) in asg.iter().enumerate() {
            // bellperson's Assignment read back, and the same vectors given directly
            let pa = unsafe { ProvingAssignment::from_assignment(a) }.expect("a consistent Assignment");
            let p = &parts[i];
            let direct = ProvingAssignment {
                a: &p.a,
                b: &p.b,
                c: &p.c,
                input_assignment: &p.inputs,
                aux_assignment: &p.aux,
                a_aux_density: &p.a_aux,
                b_input_density: &p.b_inp,
                b_aux_density: &p.b_aux,
            };
            s.submit(&key, pa.partition(Some(&rs[i].0), Some(&rs[i].1), i as u64).unwrap()).unwrap();
            s.submit(&key, direct.partition(Some(&rs[i].0), Some(&rs[i].1), 10 + i as u64).unwrap()).unwrap();
        }
        let mut got = vec![[0u8; 192]; 12];
        for _ in 0..4 {
            let o = s.engine().poll(None).unwrap().unwrap();
            got[o.tag as usize] = o.proof.expect("the adapter's partition proves");
        }
        got
    });
    assert_eq!((got[0], got[1]), (want[0], want[1]));
    assert_eq!((got[10], got[11]), (want[0], want[1]));

    let mut bad = parts[0].assignment();
    bad.a_aux_popcount += 2;
    let err = unsafe { ProvingAssignment::from_assignment(&bad) }.unwrap_err();
    assert_eq!(err.kind, cuzk::ErrorKind::Mismatch);
    assert!(err.detail.contains(&format!("a_aux popcount {}", bad.a_aux_popcount)), "{err}");
    let odd = ProvingAssignment::<[u8; 32]> {
        a: &[],
        b: &[],
        c: &[],
        input_assignment: &[],
        aux_assignment: &[],
        a_aux_density: &[],
        b_input_density: &[],
        b_aux_density: &[],
    };
    assert_eq!(odd.partition(None, None, 0).unwrap_err().kind, cuzk::ErrorKind::Invalid);
}

/// supraseal-c2 0.1's signatures, as bellperson calls them: a change here breaks the drop-in
/// at compile time, which is where this test fails.
#[test]
fn api_signatures_are_supraseals() {
    type Newer = fn(&[Assignment<Scalar>], &[Scalar], &[Scalar], &mut [Proof], &SRS);
    type Older = fn(
        &[*const Scalar],
        &[*const Scalar],
        &[*const Scalar],
        usize,
        &[*const Scalar],
        &[*const Scalar],
        usize,
        usize,
        &[usize],
        &[usize],
        &[usize],
        usize,
        usize,
        usize,
        usize,
        &[Scalar],
        &[Scalar],
        &mut [Proof],
        &SRS,
    );
    let _: Newer = generate_groth16_proofs::<Scalar, Proof>;
    let _: Older = generate_groth16_proof::<Scalar, usize, Proof>;
    let _: fn(std::path::PathBuf, bool) -> Result<SRS, cuda::Error> = SRS::try_new;
    let _: fn(&SRS) = SRS::evict;
    fn traits<T: Clone + Default + Send + Sync + 'static>() {}
    traits::<SRS>();
    fn error<E: Into<String> + std::fmt::Display + Send>() {}
    error::<cuda::Error>();
    let e: fn(&cuda::Error) -> i32 = |e| e.code; // `code` is public, as in sppark
    let _ = e;
}
