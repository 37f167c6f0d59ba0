// expect: E0505
// Leaking the engine from inside a scope, so that nothing would wait for its jobs.
include!("common.rs");
fn main() {
    let engine = cuzk::Engine::new(&cuzk::Options::default()).unwrap();
    let srs = engine.load_srs("k.params").unwrap();
    let (v, d) = (vec![cuzk::Fr::default(); 4], vec![0u64; 1]);
    engine.scope(|s| {
        s.submit(&srs, part(&v, &d)).unwrap();
        std::mem::forget(engine);
    });
}
