//! What the tests need besides the fixture (tests/common, shared with the cuzk crate): mirrors
//! of bellperson's in-memory types, partitions of the fixture circuit for chosen witnesses in
//! Montgomery form, and an independent oracle for points — schoolbook modular arithmetic
//! (double-and-add, halving) that shares nothing with the crate's Montgomery code — to
//! compress an in-memory proof and to check its points lie on the curves.
#![allow(dead_code)]
use cuzk::{Fr, Partition, ScalarForm};
use supraseal_c2::Assignment;

use crate::common::{fixture, R};

/// blstrs's Scalar in memory (blst_fr: four u64 limbs, Montgomery form).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scalar(pub [u64; 4]);

/// blst's affine points in memory; bellperson's Proof<Bls12> is A, B, C of them.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct G1 {
    pub x: [u64; 6],
    pub y: [u64; 6],
}
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct G2 {
    pub x: [[u64; 6]; 2],
    pub y: [[u64; 6]; 2],
}
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof {
    pub a: G1,
    pub b: G2,
    pub c: G1,
}

impl Proof {
    /// Not a proof: what a failed call must have overwritten.
    pub fn junk() -> Proof {
        let g1 = G1 { x: [7; 6], y: [7; 6] };
        Proof { a: g1, b: G2 { x: [[7; 6]; 2], y: [[7; 6]; 2] }, c: g1 }
    }
    pub fn is_zero(&self) -> bool {
        *self
            == Proof {
                a: G1 { x: [0; 6], y: [0; 6] },
                b: G2 { x: [[0; 6]; 2], y: [[0; 6]; 2] },
                c: G1 { x: [0; 6], y: [0; 6] },
            }
    }
}

// ---- schoolbook arithmetic modulo m < 2^382 on six little-endian limbs ----
type L = [u64; 6];
const P: L = [
    0xb9feffffffffaaab,
    0x1eabfffeb153ffff,
    0x6730d2a0f6b0f624,
    0x64774b84f38512bf,
    0x4b1ba7b6434bacd7,
    0x1a0111ea397fe69a,
];

fn ge(a: &L, b: &L) -> bool {
    (0..6).rev().find(|&i| a[i] != b[i]).map_or(true, |i| a[i] > b[i])
}
fn add(a: &L, b: &L) -> L {
    let (mut r, mut c) = ([0u64; 6], 0u128);
    for i in 0..6 {
        let v = a[i] as u128 + b[i] as u128 + c;
        r[i] = v as u64;
        c = v >> 64;
    }
    r
}
fn sub(a: &L, b: &L) -> L {
    let (mut r, mut borrow) = ([0u64; 6], 0i128);
    for i in 0..6 {
        let v = a[i] as i128 - b[i] as i128 - borrow;
        r[i] = v as u64;
        borrow = (v < 0) as i128;
    }
    r
}
fn add_mod(a: &L, b: &L, m: &L) -> L {
    let s = add(a, b);
    if ge(&s, m) {
        sub(&s, m)
    } else {
        s
    }
}
fn sub_mod(a: &L, b: &L, m: &L) -> L {
    if ge(a, b) {
        sub(a, b)
    } else {
        sub(&add(a, m), b)
    }
}
fn mul_mod(a: &L, b: &L, m: &L) -> L {
    let mut r = [0u64; 6];
    for i in (0..384).rev() {
        r = add_mod(&r, &r, m);
        if (b[i / 64] >> (i % 64)) & 1 == 1 {
            r = add_mod(&r, a, m);
        }
    }
    r
}
/// x / 2^k mod m (m odd): halve k times.
fn div_pow2(mut x: L, k: u32, m: &L) -> L {
    for _ in 0..k {
        if x[0] & 1 == 1 {
            x = add(&x, m);
        }
        for i in 0..6 {
            x[i] = (x[i] >> 1) | if i < 5 { x[i + 1] << 63 } else { 0 };
        }
    }
    x
}

fn r6() -> L {
    [R.l[0], R.l[1], R.l[2], R.l[3], 0, 0]
}

/// A canonical scalar in Montgomery form: x·2^256 mod r, by doubling.
pub fn mont(x: &Fr) -> Scalar {
    let r = r6();
    let mut v = [x.l[0], x.l[1], x.l[2], x.l[3], 0, 0];
    for _ in 0..256 {
        v = add_mod(&v, &v, &r);
    }
    Scalar([v[0], v[1], v[2], v[3]])
}

pub fn as_fr(s: &Scalar) -> Fr {
    Fr { l: s.0 }
}

fn canonical(x: &[u64; 6]) -> L {
    div_pow2(*x, 384, &P)
}
fn be(x: &L) -> [u8; 48] {
    let mut b = [0u8; 48];
    for i in 0..6 {
        b[40 - 8 * i..48 - 8 * i].copy_from_slice(&x[i].to_be_bytes());
    }
    b
}
fn larger(y: &L) -> bool {
    let half = div_pow2(sub(&P, &[1, 0, 0, 0, 0, 0]), 1, &P); // (p-1)/2: p-1 is even, halved exactly
    ge(y, &half) && *y != half
}

fn compress_g1(p: &G1) -> [u8; 48] {
    if p.x == [0; 6] && p.y == [0; 6] {
        let mut b = [0u8; 48];
        b[0] = 0xc0;
        return b;
    }
    let mut b = be(&canonical(&p.x));
    b[0] |= 0x80 | if larger(&canonical(&p.y)) { 0x20 } else { 0 };
    b
}

fn compress_g2(p: &G2) -> [u8; 96] {
    let mut b = [0u8; 96];
    if p.x == [[0; 6]; 2] && p.y == [[0; 6]; 2] {
        b[0] = 0xc0;
        return b;
    }
    b[..48].copy_from_slice(&be(&canonical(&p.x[1])));
    b[48..].copy_from_slice(&be(&canonical(&p.x[0])));
    let (y0, y1) = (canonical(&p.y[0]), canonical(&p.y[1]));
    b[0] |= 0x80 | if larger(if y1 == [0; 6] { &y0 } else { &y1 }) { 0x20 } else { 0 };
    b
}

/// bellperson's Proof::write of an in-memory proof: A‖B‖C compressed.
pub fn compress(p: &Proof) -> [u8; 192] {
    let mut out = [0u8; 192];
    out[..48].copy_from_slice(&compress_g1(&p.a));
    out[48..144].copy_from_slice(&compress_g2(&p.b));
    out[144..].copy_from_slice(&compress_g1(&p.c));
    out
}

/// y² = x³ + 4 on G1 and y² = x³ + 4(1 + u) on G2, for each point of the proof.
pub fn on_curves(p: &Proof) -> bool {
    let m = |a: &L, b: &L| mul_mod(a, b, &P);
    let four = [4, 0, 0, 0, 0, 0];
    let g1 = |q: &G1| {
        let (x, y) = (canonical(&q.x), canonical(&q.y));
        m(&y, &y) == add_mod(&m(&m(&x, &x), &x), &four, &P)
    };
    let f2 = |a: &(L, L), b: &(L, L)| {
        (sub_mod(&m(&a.0, &b.0), &m(&a.1, &b.1), &P), add_mod(&m(&a.0, &b.1), &m(&a.1, &b.0), &P))
    };
    let (x, y) = ((canonical(&p.b.x[0]), canonical(&p.b.x[1])), (canonical(&p.b.y[0]), canonical(&p.b.y[1])));
    let x3 = f2(&f2(&x, &x), &x);
    let g2 = f2(&y, &y) == (add_mod(&x3.0, &four, &P), add_mod(&x3.1, &four, &P));
    g1(&p.a) && g1(&p.c) && g2
}

// ---- partitions of the fixture circuit ----

/// A small deterministic generator (xorshift64*), seeded and printed by each test.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545F4914F6CDD1D)
    }
    /// A canonical scalar below r (the top limb kept under r's).
    pub fn scalar(&mut self) -> Scalar {
        mont(&Fr { l: [self.next(), self.next(), self.next(), self.next() & 0x0fff_ffff_ffff_ffff] })
    }
}

pub fn seed() -> u64 {
    let s = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1;
    eprintln!("seed {s:#x}");
    s
}

/// One partition in bellperson's memory form: Montgomery scalars, usize bitmaps.
pub struct Part {
    pub a: Vec<Scalar>,
    pub b: Vec<Scalar>,
    pub c: Vec<Scalar>,
    pub inputs: Vec<Scalar>,
    pub aux: Vec<Scalar>,
    pub a_aux: Vec<usize>,
    pub b_inp: Vec<usize>,
    pub b_aux: Vec<usize>,
    /// Canonical, ONE excluded, for cuzk::verify.
    pub public: Vec<Fr>,
}

fn pop(words: &[usize]) -> usize {
    words.iter().map(|w| w.count_ones() as usize).sum()
}

impl Part {
    /// The fixture circuit's partition for the witness starting x, y (the circuit: x·y, then
    /// a chain of sums whose last value is the public output; the values stay below 2^64
    /// for x, y < 64).
    pub fn new(x: u64, y: u64) -> Part {
        let fx = fixture();
        let view = fx.part.view(0);
        let wires = view.inputs.len() + view.aux.len();
        let mut v = vec![1u64, 0, x, y, x * y];
        for i in 5..wires {
            v.push(v[i - 2] + v[i - 1]);
        }
        v[1] = v[wires - 1];
        let w: Vec<Fr> = v.iter().map(|&x| Fr { l: [x, 0, 0, 0] }).collect();
        let cp = fx.circuit.partition(&w).expect("the witness satisfies the circuit");
        let p = cp.view(0);
        assert_eq!(p.scalar_form, ScalarForm::Canonical);
        let m = |v: &[Fr]| v.iter().map(mont).collect::<Vec<_>>();
        let u = |v: &[u64]| v.iter().map(|&w| w as usize).collect::<Vec<_>>();
        Part {
            a: m(p.a),
            b: m(p.b),
            c: m(p.c),
            inputs: m(p.inputs),
            aux: m(p.aux),
            a_aux: u(p.a_aux_density),
            b_inp: u(p.b_input_density),
            b_aux: u(p.b_aux_density),
            public: p.inputs[1..].to_vec(),
        }
    }

    /// As bellperson's `Assignment::from(&ProvingAssignment)` makes it.
    pub fn assignment(&self) -> Assignment<Scalar> {
        Assignment {
            a_aux_density: self.a_aux.as_ptr(),
            a_aux_bit_len: self.aux.len(),
            a_aux_popcount: pop(&self.a_aux),
            b_inp_density: self.b_inp.as_ptr(),
            b_inp_bit_len: self.inputs.len(),
            b_inp_popcount: pop(&self.b_inp),
            b_aux_density: self.b_aux.as_ptr(),
            b_aux_bit_len: self.aux.len(),
            b_aux_popcount: pop(&self.b_aux),
            a: self.a.as_ptr(),
            b: self.b.as_ptr(),
            c: self.c.as_ptr(),
            abc_size: self.a.len(),
            inp_assignment_data: self.inputs.as_ptr(),
            inp_assignment_size: self.inputs.len(),
            aux_assignment_data: self.aux.as_ptr(),
            aux_assignment_size: self.aux.len(),
        }
    }
}

/// The oracle: libcuzk's own API (the cuzk crate) proving the same Montgomery buffers with
/// the same r and s, each job on its own engine thread pool; proofs in the order given.
pub fn libcuzk_proofs(parts: &[&Part], rs: &[(Scalar, Scalar)]) -> Vec<[u8; 192]> {
    let fx = fixture();
    let e = cuzk::Engine::new(&cuzk::Options { backend: cuzk::Backend::Cpu, cpu_threads: 1, ..Default::default() })
        .expect("oracle engine");
    let srs = e.load_srs(fx.params()).expect("oracle key");
    let views: Vec<[Fr; 2]> = rs.iter().map(|(r, s)| [as_fr(r), as_fr(s)]).collect();
    let frs = |v: &[Scalar]| unsafe { std::slice::from_raw_parts(v.as_ptr() as *const Fr, v.len()) };
    let words = |v: &[usize]| unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u64, v.len()) };
    let mut out = vec![[0u8; 192]; parts.len()];
    e.scope(|s| {
        for (i, p) in parts.iter().enumerate() {
            let part = Partition {
                scalar_form: ScalarForm::Montgomery,
                a: frs(&p.a),
                b: frs(&p.b),
                c: frs(&p.c),
                inputs: frs(&p.inputs),
                aux: frs(&p.aux),
                a_aux_density: words(&p.a_aux),
                b_input_density: words(&p.b_inp),
                b_aux_density: words(&p.b_aux),
                r: Some(&views[i][0]),
                s: Some(&views[i][1]),
                priority: 0,
                tag: i as u64,
            };
            s.submit(&srs, part).expect("oracle submit");
        }
        for _ in 0..parts.len() {
            let o = s.engine().poll(None).unwrap().expect("a result");
            out[o.tag as usize] = o.proof.expect("the oracle proves");
        }
    });
    out
}

/// Every in-memory proof: on the curves, compressing to libcuzk's bytes, valid.
pub fn check_proofs(got: &[Proof], parts: &[&Part], want: &[[u8; 192]]) {
    let fx = fixture();
    for (i, p) in got.iter().enumerate() {
        assert!(on_curves(p), "proof {i}: a point is off its curve");
        let bytes = compress(p);
        assert_eq!(bytes, want[i], "proof {i}: compressed bytes differ from libcuzk's");
        cuzk::verify(&fx.vk, &bytes, &parts[i].public, ScalarForm::Canonical).expect("the proof verifies");
    }
}
