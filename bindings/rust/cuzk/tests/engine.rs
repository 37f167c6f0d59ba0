// Real partitions through the engine, every proof checked with cuzk_verify: owned witnesses
// and scoped borrows, a failed job's detail, several threads, drop with jobs in flight,
// cancel, trace events, stats, and the error mapping. The fixture is made by tests/common
// (it never skips: no fixture is a failure).
mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{fixture, Vecs, R};
use cuzk::*;

const WAIT: Option<Duration> = Some(Duration::from_secs(120));

fn engine(o: Options) -> Engine {
    Engine::new(&Options { backend: Backend::Cpu, cpu_threads: 2, ..o }).expect("engine")
}

fn check_proof(out: &Outcome<'_>, public: &[Fr]) {
    let fx = fixture();
    let proof = out.proof.as_ref().unwrap_or_else(|e| panic!("job {:?} tag {} failed: {e}", out.job, out.tag));
    verify(&fx.vk, proof, public, fx.part.view(0).scalar_form).expect("proof verifies");
}

#[test]
fn owned_witness_proves_and_comes_back() {
    let fx = fixture();
    let e = engine(Options::default());
    let srs = e.load_srs(fx.params()).unwrap();
    let mut w = Witness::from_partition(&e, &fx.part.view(7)).unwrap();
    w.priority = 3;
    let public = w.public().to_vec();
    let job = e.submit(&srs, w).unwrap();
    let out = e.poll(WAIT).unwrap().expect("a result");
    assert_eq!((out.job, out.tag, out.device), (job, 7, None));
    check_proof(&out, &public);
    let mut wrong = public.clone();
    wrong[0].l[0] ^= 1;
    let err = verify(&fx.vk, out.proof.as_ref().unwrap(), &wrong, ScalarForm::Canonical).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Verify);

    // The same block again, as a pipeline reuses its buffers.
    let mut w = out.witness.expect("the witness comes back with its result");
    assert_eq!((w.tag, w.priority), (7, 3));
    w.tag = 8;
    e.submit(&srs, w).unwrap();
    let out = e.poll(WAIT).unwrap().expect("a result");
    assert_eq!(out.tag, 8);
    check_proof(&out, &public);
    drop(out);

    let st = e.stats().unwrap();
    assert_eq!((st.submitted, st.completed, st.failed, st.host_alloc_bytes), (2, 2, 0, 0));
    assert_eq!(st.backend, Backend::Cpu);
    let text = st.prometheus(&[123]).unwrap();
    assert!(text.contains("\ncuzk_proofs_completed_total 2\n"), "{text}");
}

#[test]
fn scope_proves_borrowed_vecs() {
    let fx = fixture();
    let v = Vecs::of(&fx.part.view(0));
    let e = engine(Options::default());
    let srs = e.load_srs(fx.params()).unwrap();
    let tags = e.scope(|s| {
        for t in 0..3 {
            s.submit(&srs, v.view(t)).unwrap();
        }
        let mut tags: Vec<u64> = (0..3)
            .map(|_| {
                let out = s.engine().poll(WAIT).unwrap().expect("a result");
                assert!(out.witness.is_none());
                check_proof(&out, &v.inputs[1..]);
                out.tag
            })
            .collect();
        tags.sort();
        tags
    });
    assert_eq!(tags, [0, 1, 2]);
}

/// The scope returns only once the engine is done with its partitions: overwriting them
/// right after (with values that are not even below r) must not touch the proofs — also
/// when the closure panics.
#[test]
fn scope_waits_for_its_jobs() {
    let fx = fixture();
    let e = engine(Options::default());
    let srs = e.load_srs(fx.params()).unwrap();
    for panic in [false, true] {
        let mut v = Vecs::of(&fx.part.view(0));
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            e.scope(|s| {
                for t in 0..4 {
                    s.submit(&srs, v.view(t)).unwrap();
                }
                assert!(!panic, "a panic inside the scope");
            })
        }));
        assert_eq!(r.is_err(), panic);
        for x in v.aux.iter_mut().chain(v.a.iter_mut()) {
            *x = Fr { l: [u64::MAX; 4] };
        }
        let public = fx.part.view(0).inputs[1..].to_vec();
        for _ in 0..4 {
            check_proof(&e.poll(WAIT).unwrap().expect("a result"), &public);
        }
    }
}

/// A job that fails in the prover brings its own detail: an aux value not below r.
#[test]
fn job_failure_carries_its_detail() {
    let fx = fixture();
    let e = engine(Options::default());
    let srs = e.load_srs(fx.params()).unwrap();
    let mut v = Vecs::of(&fx.part.view(0));
    v.aux[5] = R;
    let mut w = Witness::from_partition(&e, &v.view(1)).unwrap();
    w.tag = 1;
    e.submit(&srs, w).unwrap();
    let out1 = e.poll(WAIT).unwrap().expect("a result");
    let out2 = e.scope(|s| {
        s.submit(&srs, v.view(2)).unwrap();
        e.poll(WAIT).unwrap().expect("a result")
    });
    for out in [out1, out2] {
        let err = out.proof.expect_err("aux[5] = r must fail the job");
        assert_eq!(err.kind, ErrorKind::Invalid, "{err}");
        assert!(err.detail.contains("aux["), "tag {}: detail {:?}", out.tag, err.detail);
        assert!(err.to_string().contains(&err.detail));
        println!("job (tag {}) failed: {err}", out.tag);
    }
    assert_eq!(e.stats().unwrap().failed, 2);
}

#[test]
fn many_threads_submit_and_poll() {
    let fx = fixture();
    let e = engine(Options { queue_capacity: 2, ..Default::default() });
    let srs = e.load_srs(fx.params()).unwrap();
    let public = fx.part.view(0).inputs[1..].to_vec();
    let (threads, per) = (4u64, 2u64);
    std::thread::scope(|t| {
        for i in 0..threads {
            let (e, srs) = (&e, &srs);
            t.spawn(move || {
                for k in 0..per {
                    let mut w = Witness::from_partition(e, &fx.part.view(i * per + k)).unwrap();
                    loop {
                        match e.submit(srs, w) {
                            Ok(_) => break,
                            Err(SubmitError { error, witness }) if error.kind == ErrorKind::Again => {
                                w = witness;
                                std::thread::sleep(Duration::from_millis(1));
                            }
                            Err(err) => panic!("{err}"),
                        }
                    }
                }
            });
        }
        let mut seen = vec![false; (threads * per) as usize];
        for _ in 0..threads * per {
            let out = e.poll(WAIT).unwrap().expect("a result");
            check_proof(&out, &public);
            assert_eq!(out.witness.as_ref().map(|w| w.tag), Some(out.tag));
            assert!(!std::mem::replace(&mut seen[out.tag as usize], true), "tag {} twice", out.tag);
        }
    });
}

#[test]
fn drop_engine_with_jobs_in_flight() {
    let fx = fixture();
    let e = engine(Options::default());
    let srs = e.load_srs(fx.params()).unwrap();
    for t in 0..4 {
        e.submit(&srs, Witness::from_partition(&e, &fx.part.view(t)).unwrap()).unwrap();
    }
    drop(srs);
    drop(e); // canceled, waited for; the engine frees the blocks it holds
}

#[test]
fn urgent_workers_from_options() {
    // CUZK_OPT_URGENT_PRIORITY = 5: one ordinary worker plus one per level 5, 6, 7
    let e = engine(Options { workers_per_device: 1, urgent_priority: 5, ..Default::default() });
    assert_eq!(e.stats().unwrap().workers, 4);
    let err = Engine::new(&Options { backend: Backend::Cpu, urgent_priority: 8, ..Default::default() }).err();
    assert_eq!(err.expect("8 is out of range").kind, ErrorKind::Invalid);
}

#[test]
fn pinned_key_and_its_placement() {
    // the CPU backend keeps every key in host memory: pinned or not, placement Host, and a
    // device index past the one it has is refused
    let fx = fixture();
    let e = engine(Options::default());
    let srs = e.load_srs_pinned(fx.params()).unwrap();
    let p = srs.placement(0).unwrap();
    assert_eq!(p.kind, PlacementKind::Host);
    assert_eq!(p.device, -1);
    assert_eq!(srs.placement(1).err().expect("no device 1").kind, ErrorKind::Invalid);
    let urgent = e.load_srs_urgent(fx.params()).unwrap();
    assert_eq!(urgent.placement(0).unwrap().kind, PlacementKind::Host);
}

#[test]
fn cancel_a_job() {
    let fx = fixture();
    let e = engine(Options { workers_per_device: 1, ..Default::default() });
    let srs = e.load_srs(fx.params()).unwrap();
    let jobs: Vec<Job> =
        (0..3).map(|t| e.submit(&srs, Witness::from_partition(&e, &fx.part.view(t)).unwrap()).unwrap()).collect();
    let last = *jobs.last().unwrap();
    let canceled = match e.cancel(last) {
        Ok(()) => true,
        Err(err) if err.kind == ErrorKind::Again => false, // already finished
        Err(err) => panic!("{err}"),
    };
    let mut saw = false;
    for _ in 0..3 {
        let out = e.poll(WAIT).unwrap().expect("a result");
        assert!(out.witness.is_some());
        if out.job == last {
            saw = true;
            // A running job may finish before its next stage boundary: Ok is fine too.
            if let Err(err) = &out.proof {
                assert!(canceled && err.kind == ErrorKind::Canceled, "{err}");
            }
        }
    }
    assert!(saw);
    assert_eq!(e.cancel(last).unwrap_err().kind, ErrorKind::NotFound);
}

#[test]
fn trace_events_reach_the_closure() {
    let fx = fixture();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&events);
    let e = Engine::with_trace(
        &Options { backend: Backend::Cpu, cpu_threads: 2, ..Default::default() },
        move |ev: &TraceEvent| sink.lock().unwrap().push(*ev),
    )
    .unwrap();
    let srs = e.load_srs(fx.params()).unwrap();
    e.submit(&srs, Witness::from_partition(&e, &fx.part.view(42)).unwrap()).unwrap();
    check_proof(&e.poll(WAIT).unwrap().expect("a result"), &fx.part.view(0).inputs[1..]);
    drop(srs);
    drop(e); // delivers what is still in the ring
    let ev = events.lock().unwrap();
    for kind in [TraceKind::SUBMIT, TraceKind::START, TraceKind::RESULT] {
        assert!(
            ev.iter().any(|x| x.kind == kind && x.tag == 42),
            "no {:?} event for tag 42 in {}",
            kind.name(),
            ev.len()
        );
    }
    assert!(ev.iter().all(|x| x.end_ns >= x.begin_ns));
}

#[test]
fn errors_name_every_code() {
    for code in -13..=-1 {
        let k = ErrorKind::from_code(code);
        assert!(!matches!(k, ErrorKind::Unknown(_)), "code {code}");
        assert_eq!(k.code(), code);
        assert!(k.name().starts_with("CUZK_E"));
        let text = Error::new(k, "").to_string();
        assert!(text.starts_with(k.name()), "{text} for {}", k.name());
    }
    assert_eq!(ErrorKind::from_code(-99), ErrorKind::Unknown(-99));
    assert!(Error::new(ErrorKind::Unknown(-99), "x").to_string().contains("-99"));

    let err = Circuit::load("/nonexistent/c.r1cs").err().unwrap();
    assert_eq!(err.kind, ErrorKind::Io);
    assert!(!err.detail.is_empty());
    assert_eq!(verify(&[1, 2, 3], &[0u8; 192], &[], ScalarForm::Canonical).unwrap_err().kind, ErrorKind::Format);
    assert!(compatible(), "loaded {:?}", version());

    // Lengths the library would trust are checked before any pointer reaches it.
    let fx = fixture();
    let e = engine(Options::default());
    let srs = e.load_srs(fx.params()).unwrap();
    let v = Vecs::of(&fx.part.view(0));
    let err = e.scope(|s| s.submit(&srs, Partition { a_aux_density: &v.a_aux_density[..1], ..v.view(0) }).unwrap_err());
    assert_eq!(err.kind, ErrorKind::Invalid);
    assert!(err.detail.contains("a_aux_density"), "{err}");
    let err = e.scope(|s| s.submit(&srs, Partition { c: &v.c[1..], ..v.view(0) }).unwrap_err());
    assert_eq!(err.kind, ErrorKind::Invalid);

    // A witness of another engine is refused, and handed back.
    let other = engine(Options::default());
    let w = Witness::from_partition(&other, &v.view(0)).unwrap();
    let SubmitError { error, witness } = e.submit(&srs, w).unwrap_err();
    assert_eq!(error.kind, ErrorKind::Invalid);
    drop(witness);
    // Shapes that overflow are refused before any allocation.
    let err = e.witness(Shape { abc_len: usize::MAX / 2, num_inputs: 1, num_aux: 1 }).unwrap_err();
    assert_eq!(err.kind, ErrorKind::Invalid);
}

#[test]
fn thread_safety_is_stated() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Engine>();
    send_sync::<Srs<'static>>();
    send_sync::<Witness<'static>>();
    send_sync::<Scope<'static, 'static>>();
    send_sync::<Circuit>();
    send_sync::<CircomPartition>();
    send_sync::<Outcome<'static>>();
    send_sync::<Error>();
}
