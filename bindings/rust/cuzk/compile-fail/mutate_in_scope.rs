// expect: E0502
// Overwriting a submitted partition's buffer inside the scope.
include!("common.rs");
fn main() {
    let engine = cuzk::Engine::new(&cuzk::Options::default()).unwrap();
    let srs = engine.load_srs("k.params").unwrap();
    let (mut v, d) = (vec![cuzk::Fr::default(); 4], vec![0u64; 1]);
    engine.scope(|s| {
        s.submit(&srs, part(&v, &d)).unwrap();
        v[0] = cuzk::Fr { l: [u64::MAX; 4] };
    });
}
