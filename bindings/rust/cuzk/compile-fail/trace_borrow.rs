// expect: E0373
// A trace closure that borrows the host's stack: a leaked engine would call it forever.
fn main() {
    let mut seen = Vec::new();
    let engine = cuzk::Engine::with_trace(&cuzk::Options::default(), |ev| seen.push(*ev)).unwrap();
    drop(engine);
}
