// Real partitions through the engine (fixture from test/bindings_fixture.sh, CUZK_FIXTURE),
// every proof checked with cuzk_verify; several threads; drop with jobs in flight.
use cuzk::*;
use std::time::Duration;

struct Fx {
    dir: String,
    vk: Vec<u8>,
    part: OwnedPartition,
}

fn fixture() -> Option<Fx> {
    let dir = std::env::var("CUZK_FIXTURE").ok().filter(|d| !d.is_empty())?;
    let part = OwnedPartition::from_circom(&format!("{dir}/c.r1cs"), &format!("{dir}/c.wtns")).unwrap();
    let vk = std::fs::read(format!("{dir}/c.vk")).unwrap();
    Some(Fx { dir, vk, part })
}

fn engine<'env>(o: Options) -> Option<Engine<'env>> {
    match Engine::new(&Options { cpu_threads: 2, ..o }) {
        Err(e) if e.code == EDEVICE => {
            eprintln!("skip: no prover in this build: {e}");
            None
        }
        r => Some(r.unwrap()),
    }
}

#[test]
fn prove_and_verify() {
    let Some(fx) = fixture() else { return };
    let Some(e) = engine(Options::default()) else { return };
    let srs = e.load_srs(&format!("{}/c.params", fx.dir)).unwrap();
    let job = e.submit(&srs, &fx.part.view(7)).unwrap();
    let out = e.poll(Some(Duration::from_secs(60))).unwrap().expect("a result");
    assert_eq!((out.job, out.tag), (job, 7));
    let proof = out.proof.unwrap();
    verify(&fx.vk, &proof, fx.part.public(), fx.part.scalar_form).unwrap();
    let mut wrong = fx.part.public().to_vec();
    wrong[0].l[0] ^= 1;
    assert_eq!(verify(&fx.vk, &proof, &wrong, fx.part.scalar_form).unwrap_err().code, EVERIFY);
    assert!(e.prometheus().unwrap().contains("\ncuzk_proofs_completed_total 1\n"));
}

#[test]
fn many_threads() {
    let Some(fx) = fixture() else { return };
    let Some(e) = engine(Options { queue_capacity: 2, ..Default::default() }) else { return };
    let srs = e.load_srs(&format!("{}/c.params", fx.dir)).unwrap();
    let (threads, per) = (4u64, 2u64);
    std::thread::scope(|s| {
        for t in 0..threads {
            let (e, srs, part) = (&e, &srs, &fx.part);
            s.spawn(move || {
                for i in 0..per {
                    loop {
                        match e.submit(srs, &part.view(t * per + i)) {
                            Err(err) if err.code == EAGAIN => std::thread::sleep(Duration::from_millis(1)),
                            r => {
                                r.unwrap();
                                break;
                            }
                        }
                    }
                }
            });
        }
        let mut seen = vec![false; (threads * per) as usize];
        for _ in 0..threads * per {
            let out = e.poll(Some(Duration::from_secs(120))).unwrap().expect("a result");
            verify(&fx.vk, &out.proof.unwrap(), fx.part.public(), fx.part.scalar_form).unwrap();
            assert!(!std::mem::replace(&mut seen[out.tag as usize], true));
        }
    });
}

#[test]
fn drop_with_jobs_in_flight() {
    let Some(fx) = fixture() else { return };
    let copies: Vec<OwnedPartition> = (0..4)
        .map(|_| OwnedPartition::from_circom(&format!("{}/c.r1cs", fx.dir), &format!("{}/c.wtns", fx.dir)).unwrap())
        .collect();
    {
        let Some(e) = engine(Options::default()) else { return };
        let srs = e.load_srs(&format!("{}/c.params", fx.dir)).unwrap();
        for (i, p) in copies.iter().enumerate() {
            e.submit(&srs, &p.view(i as u64)).unwrap();
        }
        drop(srs);
        // e dropped here with jobs queued and running: canceled, waited for.
    }
    // The borrowed buffers are ours again and intact.
    drop(copies);
}

#[test]
fn errors() {
    assert!(compatible(), "loaded {:?}", version());
    let err = OwnedPartition::from_circom("/nonexistent.r1cs", "/nonexistent.wtns").err().unwrap();
    assert_eq!(err.code, EIO);
    assert!(!err.detail.is_empty());
    assert!(err.to_string().starts_with("CUZK_EIO"));
    assert_eq!(verify(&[1, 2, 3], &[0u8; 192], &[], 1).unwrap_err().code, EFORMAT);
}
