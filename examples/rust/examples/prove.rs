//! cargo run --example prove -- PARAMS VK R1CS WTNS [N]: prove a circom witness N times.
use cuzk::*;


fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 5 {
        eprintln!("usage: prove PARAMS VK R1CS WTNS [N]");
        std::process::exit(2);
    }
    let n: u64 = a.get(5).map_or(Ok(3), |s| s.parse())?;
    let vk = std::fs::read(&a[2])?;
    let part = OwnedPartition::from_circom(&a[3], &a[4])?; // outlives the engine below
    let engine = Engine::new(&Options::default())?;
    let srs = engine.load_srs(&a[1])?;
    for i in 0..n {
        engine.submit(&srs, &part.view(i))?;
    }
    for _ in 0..n {
        let out = engine.poll(None)?.expect("a result");
        let proof = out.proof?;
        verify(&vk, &proof, part.public(), part.scalar_form)?;
        println!("proof {} valid (device {}, {:?})", out.tag, out.device, out.total);
    }
    Ok(())
}
