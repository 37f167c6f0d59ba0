// expect: E0505
// Freeing a submitted partition's buffer inside the scope, before the engine is done.
include!("common.rs");
fn main() {
    let engine = cuzk::Engine::new(&cuzk::Options::default()).unwrap();
    let srs = engine.load_srs("k.params").unwrap();
    let (v, d) = (vec![cuzk::Fr::default(); 4], vec![0u64; 1]);
    engine.scope(|s| {
        s.submit(&srs, part(&v, &d)).unwrap();
        drop(v);
    });
}
