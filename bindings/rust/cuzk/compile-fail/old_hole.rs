// expect: E0308
// The 0.1 binding's hole (issue 15), written against this API: a borrowed partition
// submitted straight to the engine, the engine leaked, the slices freed while the job reads
// them. Engine::submit takes only an owned Witness; borrowed slices go through a scope.
include!("common.rs");
fn main() {
    let engine = cuzk::Engine::new(&cuzk::Options::default()).unwrap();
    let srs = engine.load_srs("k.params").unwrap();
    let (v, d) = (vec![cuzk::Fr::default(); 4], vec![0u64; 1]);
    engine.submit(&srs, part(&v, &d)).unwrap();
    std::mem::forget(engine);
    drop(v);
}
