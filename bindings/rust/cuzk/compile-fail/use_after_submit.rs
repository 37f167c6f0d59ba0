// expect: E0382
// Writing into a witness the engine now owns.
fn main() {
    let engine = cuzk::Engine::new(&cuzk::Options::default()).unwrap();
    let srs = engine.load_srs("k.params").unwrap();
    let mut w = engine.witness(cuzk::Shape { abc_len: 4, num_inputs: 2, num_aux: 2 }).unwrap();
    engine.submit(&srs, w).unwrap();
    w.parts_mut().aux[0] = cuzk::Fr::default();
}
