// expect: E0521
// Smuggling the scope out to submit after it has returned (and stopped waiting).
include!("common.rs");
fn main() {
    let engine = cuzk::Engine::new(&cuzk::Options::default()).unwrap();
    let srs = engine.load_srs("k.params").unwrap();
    let (v, d) = (vec![cuzk::Fr::default(); 4], vec![0u64; 1]);
    let mut kept = None;
    engine.scope(|s| kept = Some(s));
    kept.unwrap().submit(&srs, part(&v, &d)).unwrap();
}
