//! cargo run --example prove -- PARAMS VK R1CS WTNS [N]: proves a circom witness N times, as
//! owned witnesses in engine host memory (each reused once its result is back), and checks
//! every proof.
use cuzk::*;

fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 5 {
        eprintln!("usage: prove PARAMS VK R1CS WTNS [N]");
        std::process::exit(2);
    }
    let n: u64 = a.get(5).map_or(Ok(3), |s| s.parse())?;
    let vk = std::fs::read(&a[2])?;
    let circuit = Circuit::load(&a[3])?;
    let part = circuit.partition(&load_wtns(&a[4])?)?;
    let public = part.view(0).public().to_vec();
    let form = part.view(0).scalar_form;

    let engine = Engine::new(&Options::default())?;
    let srs = engine.load_srs(&a[1])?;
    // Two blocks in flight at most: each comes back with its result and is refilled.
    let mut free: Vec<Witness<'_>> = Vec::new();
    let (mut sent, mut done) = (0u64, 0u64);
    while done < n {
        while sent < n && sent - done < 2 {
            let mut w = match free.pop() {
                Some(w) => w,
                None => Witness::from_partition(&engine, &part.view(0))?,
            };
            w.tag = sent;
            engine.submit(&srs, w).map_err(Error::from)?; // the witness is dropped on failure
            sent += 1;
        }
        let out = engine.poll(None)?.expect("a result");
        verify(&vk, &out.proof?, &public, form)?;
        println!("proof {} valid (device {:?}, {:?})", out.tag, out.device, out.total);
        free.extend(out.witness);
        done += 1;
    }
    Ok(())
}
