//! The tests' own fixture, made here rather than skipped when absent: a small circom circuit
//! (a product, then a Fibonacci-like chain of sums, its last value the one public output)
//! written as .r1cs and .wtns files, and a TEST-ONLY key pair for it from cuzk_setup.
//! CUZK_FIXTURE=dir uses dir/c.{r1cs,wtns,params,vk} instead, and fails if they are missing.
#![allow(dead_code)]
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cuzk::*;

/// BLS12-381's r, little-endian limbs.
pub const R: Fr = Fr { l: [0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48] };
/// Aux wires of the made circuit (two density words).
const AUX: usize = 70;

pub struct Fixture {
    pub dir: PathBuf,
    pub vk: Vec<u8>,
    pub circuit: Circuit,
    pub part: CircomPartition,
}

impl Fixture {
    pub fn params(&self) -> PathBuf {
        self.dir.join("c.params")
    }
}

pub fn fixture() -> &'static Fixture {
    static FX: OnceLock<Fixture> = OnceLock::new();
    FX.get_or_init(|| {
        let dir = match std::env::var_os("CUZK_FIXTURE").filter(|d| !d.is_empty()) {
            Some(d) => PathBuf::from(d),
            None => make(&Path::new(env!("CARGO_TARGET_TMPDIR")).join("fixture")),
        };
        let circuit = Circuit::load(dir.join("c.r1cs"))
            .unwrap_or_else(|e| panic!("fixture {}: {e} (unset CUZK_FIXTURE to make one)", dir.display()));
        let wtns = load_wtns(dir.join("c.wtns")).unwrap();
        let part = circuit.partition(&wtns).unwrap();
        let vk = std::fs::read(dir.join("c.vk")).unwrap();
        Fixture { dir, vk, circuit, part }
    })
}

fn fr(x: u64) -> [u8; 32] {
    let mut b = [0u8; 32];
    b[..8].copy_from_slice(&x.to_le_bytes());
    b
}

fn r_bytes() -> Vec<u8> {
    R.l.iter().flat_map(|l| l.to_le_bytes()).collect()
}

/// An iden3 container: magic, version, then (id, size, bytes) sections.
fn container(magic: &[u8; 4], version: u32, sections: &[(u32, Vec<u8>)]) -> Vec<u8> {
    let mut f = magic.to_vec();
    f.extend(version.to_le_bytes());
    f.extend((sections.len() as u32).to_le_bytes());
    for (id, data) in sections {
        f.extend(id.to_le_bytes());
        f.extend((data.len() as u64).to_le_bytes());
        f.extend(data);
    }
    f
}

/// Writes the circuit, its witness and a key pair into dir (each file renamed into place,
/// so a concurrent reader never sees half of one).
fn make(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    // Wires: 0 ONE, 1 the public output, 2.. aux. w2 * w3 = w4, w[i-2] + w[i-1] = w[i], out = last.
    let wires = AUX + 2;
    let mut v = vec![1u64, 0, 3, 5, 15];
    for i in 5..wires {
        v.push(v[i - 2] + v[i - 1]);
    }
    v[1] = v[wires - 1];
    let lc = |terms: &[usize]| -> Vec<u8> {
        let mut b = (terms.len() as u32).to_le_bytes().to_vec();
        for &w in terms {
            b.extend((w as u32).to_le_bytes());
            b.extend(fr(1));
        }
        b
    };
    let mut cons = Vec::new();
    let mut m = 0u32;
    let mut constraint = |a: &[usize], b: &[usize], c: &[usize]| {
        cons.extend(lc(a));
        cons.extend(lc(b));
        cons.extend(lc(c));
        m += 1;
    };
    constraint(&[2], &[3], &[4]);
    for i in 5..wires {
        constraint(&[i - 2, i - 1], &[0], &[i]);
    }
    constraint(&[wires - 1], &[0], &[1]);
    let mut header = 32u32.to_le_bytes().to_vec();
    header.extend(r_bytes());
    for x in [wires as u32, 1, 0, 0] {
        header.extend(x.to_le_bytes());
    }
    header.extend((wires as u64).to_le_bytes());
    header.extend(m.to_le_bytes());
    let labels: Vec<u8> = (0..wires as u64).flat_map(|i| i.to_le_bytes()).collect();
    let r1cs = container(b"r1cs", 1, &[(1, header), (2, cons), (3, labels)]);
    let mut wh = 32u32.to_le_bytes().to_vec();
    wh.extend(r_bytes());
    wh.extend((wires as u32).to_le_bytes());
    let wtns = container(b"wtns", 2, &[(1, wh), (2, v.iter().flat_map(|&x| fr(x)).collect())]);

    let put = |name: &str, bytes: &[u8]| {
        let tmp = dir.join(format!("{name}.{}", std::process::id()));
        std::fs::write(&tmp, bytes).unwrap();
        std::fs::rename(&tmp, dir.join(name)).unwrap();
    };
    put("c.r1cs", &r1cs);
    put("c.wtns", &wtns);
    let circuit = Circuit::load(dir.join("c.r1cs")).expect("the made .r1cs loads");
    let (p, k) =
        (dir.join(format!("c.params.{}", std::process::id())), dir.join(format!("c.vk.{}", std::process::id())));
    insecure_test_setup(&circuit, &[7u8; 32], Some(&p), Some(&k)).expect("cuzk_setup");
    std::fs::rename(&p, dir.join("c.params")).unwrap();
    std::fs::rename(&k, dir.join("c.vk")).unwrap();
    dir.to_path_buf()
}

/// A partition's buffers in the test's own Vecs (a host's synthesis output, say).
pub struct Vecs {
    pub form: ScalarForm,
    pub a: Vec<Fr>,
    pub b: Vec<Fr>,
    pub c: Vec<Fr>,
    pub inputs: Vec<Fr>,
    pub aux: Vec<Fr>,
    pub a_aux_density: Vec<u64>,
    pub b_input_density: Vec<u64>,
    pub b_aux_density: Vec<u64>,
}

impl Vecs {
    pub fn of(p: &Partition<'_>) -> Vecs {
        Vecs {
            form: p.scalar_form,
            a: p.a.to_vec(),
            b: p.b.to_vec(),
            c: p.c.to_vec(),
            inputs: p.inputs.to_vec(),
            aux: p.aux.to_vec(),
            a_aux_density: p.a_aux_density.to_vec(),
            b_input_density: p.b_input_density.to_vec(),
            b_aux_density: p.b_aux_density.to_vec(),
        }
    }

    pub fn view(&self, tag: u64) -> Partition<'_> {
        Partition {
            scalar_form: self.form,
            a: &self.a,
            b: &self.b,
            c: &self.c,
            inputs: &self.inputs,
            aux: &self.aux,
            a_aux_density: &self.a_aux_density,
            b_input_density: &self.b_input_density,
            b_aux_density: &self.b_aux_density,
            r: None,
            s: None,
            priority: 0,
            tag,
        }
    }
}
