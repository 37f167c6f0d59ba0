//! Witness-only partitions (libcuzk 0.4) through the safe crate: a constraint system loaded
//! from the fixture's .r1cs and from its compact conversion; the same witness, r and s
//! submitted as a whole partition and as its witness alone give the same proof bytes, which
//! verify; wrong counts are refused with the counts named; a value not below r fails its job;
//! every borrowed slice is released before the scope returns.
mod common;

use common::{fixture, R};
use cuzk::*;

const WAIT: Option<std::time::Duration> = Some(std::time::Duration::from_secs(60));

fn engine() -> Engine {
    Engine::new(&Options { backend: Backend::Cpu, cpu_threads: 2, ..Options::default() }).expect("engine")
}

/// Proof bytes by tag, every job having succeeded.
fn proofs(e: &Engine, n: usize) -> Vec<(u64, Proof)> {
    let mut out: Vec<(u64, Proof)> = (0..n)
        .map(|_| {
            let o = e.poll(WAIT).unwrap().expect("a result");
            (o.tag, *o.proof.as_ref().unwrap_or_else(|err| panic!("tag {} failed: {err}", o.tag)))
        })
        .collect();
    out.sort_by_key(|p| p.0);
    out
}

#[test]
fn witness_path_equals_the_abc_path() {
    let fx = fixture();
    let part = fx.part.view(0);
    let e = engine();
    let srs = e.load_srs(fx.params()).unwrap();
    let compact = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("witness-c.cuzkcs");
    convert_r1cs(fx.dir.join("c.r1cs"), &compact).unwrap();
    let from_r1cs = e.load_cs(fx.dir.join("c.r1cs")).unwrap();
    let from_compact = e.load_cs(&compact).unwrap();
    let streamed = e.load_cs_streamed(&compact).unwrap(); /* CUZK_CS_STREAM: the same proof */
    for cs in [&from_r1cs, &from_compact, &streamed] {
        let info = cs.info().unwrap();
        assert_eq!(info.num_inputs as usize, part.inputs.len());
        assert_eq!(info.num_aux as usize, part.aux.len());
        assert_eq!(info.abc_len as usize, part.a.len());
        assert_eq!(info.abc_len, info.num_constraints + info.num_inputs);
        assert!(info.host_bytes > 0 && info.nnz[0] > 0);
    }
    assert!(e.stats().unwrap().cs_host_bytes >= from_r1cs.info().unwrap().host_bytes * 3);
    let (r, s) = (Fr { l: [7, 0, 0, 0] }, Fr { l: [11, 0, 0, 0] });
    let whole = Partition { r: Some(&r), s: Some(&s), tag: 0, ..part };
    let w = |tag| WitnessPartition {
        scalar_form: part.scalar_form,
        inputs: part.inputs,
        aux: part.aux,
        r: Some(&r),
        s: Some(&s),
        priority: 0,
        tag,
    };
    let got = e.scope(|sc| {
        sc.submit(&srs, whole).unwrap();
        sc.submit_witness(&srs, &from_r1cs, w(1)).unwrap();
        sc.submit_witness(&srs, &from_compact, w(2)).unwrap();
        sc.submit_witness(&srs, &streamed, w(3)).unwrap();
        proofs(sc.engine(), 4)
    });
    assert_eq!(got[0].1, got[1].1, "witness path (.r1cs) differs from the a/b/c path");
    assert_eq!(got[0].1, got[2].1, "witness path (compact file) differs from the a/b/c path");
    assert_eq!(got[0].1, got[3].1, "witness path (system loaded streamed) differs from the a/b/c path");
    verify(&fx.vk, &got[1].1, w(1).public(), part.scalar_form).expect("the witness path's proof verifies");
}

#[test]
fn witness_errors() {
    let fx = fixture();
    let part = fx.part.view(0);
    let e = engine();
    let srs = e.load_srs(fx.params()).unwrap();
    let cs = e.load_cs(fx.dir.join("c.r1cs")).unwrap();
    let short = &part.aux[..part.aux.len() - 1];
    let mut bad_aux = part.aux.to_vec();
    bad_aux[3] = R; // not below r
    e.scope(|sc| {
        let w = WitnessPartition {
            scalar_form: ScalarForm::Canonical,
            inputs: part.inputs,
            aux: short,
            r: None,
            s: None,
            priority: 0,
            tag: 9,
        };
        let err = sc.submit_witness(&srs, &cs, w).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Mismatch, "{err}");
        let text = err.to_string();
        assert!(text.contains(&short.len().to_string()) && text.contains(&part.aux.len().to_string()), "{text}");
        sc.submit_witness(&srs, &cs, WitnessPartition { aux: &bad_aux, ..w }).unwrap();
        let o = sc.engine().poll(WAIT).unwrap().expect("a result");
        let err = o.proof.as_ref().unwrap_err();
        assert_eq!(err.kind, ErrorKind::Invalid, "{err}");
        assert!(err.to_string().contains("aux[3]"), "{err}");
    });
    assert!(e.load_cs("/nonexistent/c.r1cs").is_err());
    let other = engine();
    let cs_other = other.load_cs(fx.dir.join("c.r1cs")).unwrap();
    e.scope(|sc| {
        let w = WitnessPartition {
            scalar_form: part.scalar_form,
            inputs: part.inputs,
            aux: part.aux,
            r: None,
            s: None,
            priority: 0,
            tag: 1,
        };
        assert_eq!(sc.submit_witness(&srs, &cs_other, w).unwrap_err().kind, ErrorKind::Invalid);
    });
}
