// expect: E0597
// A buffer that lives inside the scope closure: it would be freed when the closure
// returns, before the scope has waited for the job.
include!("common.rs");
fn main() {
    let engine = cuzk::Engine::new(&cuzk::Options::default()).unwrap();
    let srs = engine.load_srs("k.params").unwrap();
    let d = vec![0u64; 1];
    engine.scope(|s| {
        let v = vec![cuzk::Fr::default(); 4];
        s.submit(&srs, part(&v, &d)).unwrap();
    });
}
