// expect: ok
// The same programs written the sound way: this one must compile.
include!("common.rs");
fn main() {
    let engine = cuzk::Engine::with_trace(&cuzk::Options::default(), move |_ev| {}).unwrap();
    let srs = engine.load_srs("k.params").unwrap();
    let (mut v, d) = (vec![cuzk::Fr::default(); 4], vec![0u64; 1]);
    engine.scope(|s| {
        s.submit(&srs, part(&v, &d)).unwrap();
    });
    v[0] = cuzk::Fr::default(); // the scope has waited: the buffer is ours again
    drop(v);
    let mut w = engine.witness(cuzk::Shape { abc_len: 4, num_inputs: 2, num_aux: 2 }).unwrap();
    w.parts_mut().aux[0] = cuzk::Fr::default();
    engine.submit(&srs, w).unwrap();
    let back = engine.poll(None).unwrap().and_then(|o| o.witness);
    drop(back);
    drop(srs);
    std::mem::forget(engine); // leaks; frees nothing a job reads
}
