// expect: E0505
// Keeping a Witness after its engine is gone (the engine frees its host memory).
fn main() {
    let engine = cuzk::Engine::new(&cuzk::Options::default()).unwrap();
    let w = engine.witness(cuzk::Shape { abc_len: 4, num_inputs: 2, num_aux: 2 }).unwrap();
    drop(engine);
    drop(w);
}
