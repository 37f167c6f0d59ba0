//! libcuzk's proof (A‖B‖C compressed, zcash encoding) turned into bellperson's in-memory
//! `Proof<Bls12>`: affine points as blst keeps them, each Fp six little-endian limbs in
//! Montgomery form (R = 2^384), Fp2 as c0 then c1, infinity all zeros. The public C API has
//! no call that hands out points in memory form, so decompression (a square root in Fp or Fp2)
//! is done here, with the textbook algorithms; every root is squared back before it is used.
type Limbs = [u64; 6];

/// p, little-endian (docs/formats.md).
const P: Limbs = [
    0xb9feffffffffaaab,
    0x1eabfffeb153ffff,
    0x6730d2a0f6b0f624,
    0x64774b84f38512bf,
    0x4b1ba7b6434bacd7,
    0x1a0111ea397fe69a,
];

const fn geq(a: &Limbs, b: &Limbs) -> bool {
    let mut i = 6;
    while i > 0 {
        i -= 1;
        if a[i] != b[i] {
            return a[i] > b[i];
        }
    }
    true
}

const fn sub_raw(a: &Limbs, b: &Limbs) -> (Limbs, bool) {
    let mut r = [0u64; 6];
    let mut borrow = false;
    let mut i = 0;
    while i < 6 {
        let (d, b1) = a[i].overflowing_sub(b[i]);
        let (d, b2) = d.overflowing_sub(borrow as u64);
        r[i] = d;
        borrow = b1 | b2;
        i += 1;
    }
    (r, borrow)
}

/// a + b and the carry out of 384 bits.
const fn add_raw(a: &Limbs, b: &Limbs) -> (Limbs, bool) {
    let mut r = [0u64; 6];
    let mut carry = false;
    let mut i = 0;
    while i < 6 {
        let (s, c1) = a[i].overflowing_add(b[i]);
        let (s, c2) = s.overflowing_add(carry as u64);
        r[i] = s;
        carry = c1 | c2;
        i += 1;
    }
    (r, carry)
}

const fn add_mod(a: &Limbs, b: &Limbs) -> Limbs {
    let (mut r, carry) = add_raw(a, b);
    if carry || geq(&r, &P) {
        r = sub_raw(&r, &P).0;
    }
    r
}

/// 2^k mod p by doubling 1, so no other constant has to be trusted.
const fn pow2_mod(k: u32) -> Limbs {
    let mut x = [1, 0, 0, 0, 0, 0];
    let mut i = 0;
    while i < k {
        x = add_mod(&x, &x);
        i += 1;
    }
    x
}

const fn shr(a: &Limbs, k: u32) -> Limbs {
    let mut r = [0u64; 6];
    let mut i = 0;
    while i < 6 {
        r[i] = a[i] >> k;
        if i + 1 < 6 {
            r[i] |= a[i + 1] << (64 - k);
        }
        i += 1;
    }
    r
}

/// -p^-1 mod 2^64 (Newton's iteration doubles the correct low bits each step).
const INV: u64 = {
    let mut x = 1u64;
    let mut i = 0;
    while i < 7 {
        x = x.wrapping_mul(2u64.wrapping_sub(P[0].wrapping_mul(x)));
        i += 1;
    }
    x.wrapping_neg()
};
const R2: Limbs = pow2_mod(768);
const ONE: Fp = Fp(pow2_mod(384));
/// p = 3 mod 4, so (p+1)/4 = (p>>2)+1, (p-3)/4 = p>>2 and (p-1)/2 = p>>1.
const P_SHR2: Limbs = shr(&P, 2);
const P_PLUS1_DIV4: Limbs = add_mod(&P_SHR2, &[1, 0, 0, 0, 0, 0]);
const P_MINUS1_DIV2: Limbs = shr(&P, 1);

/// An element of Fp in Montgomery form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fp(Limbs);

impl Fp {
    const ZERO: Fp = Fp([0; 6]);

    /// Montgomery product (CIOS); inputs below p give an output below p.
    fn mul(&self, b: &Fp) -> Fp {
        let (a, b) = (&self.0, &b.0);
        let mut t = [0u64; 8];
        for &bi in b {
            let mut c = 0u128;
            for j in 0..6 {
                let v = t[j] as u128 + a[j] as u128 * bi as u128 + c;
                t[j] = v as u64;
                c = v >> 64;
            }
            let v = t[6] as u128 + c;
            t[6] = v as u64;
            t[7] = (v >> 64) as u64;
            let m = t[0].wrapping_mul(INV);
            let mut c = (t[0] as u128 + m as u128 * P[0] as u128) >> 64;
            for j in 1..6 {
                let v = t[j] as u128 + m as u128 * P[j] as u128 + c;
                t[j - 1] = v as u64;
                c = v >> 64;
            }
            let v = t[6] as u128 + c;
            t[5] = v as u64;
            t[6] = t[7] + (v >> 64) as u64;
        }
        let r: Limbs = t[..6].try_into().unwrap();
        Fp(if t[6] != 0 || geq(&r, &P) { sub_raw(&r, &P).0 } else { r })
    }
    fn square(&self) -> Fp {
        self.mul(self)
    }
    fn add(&self, b: &Fp) -> Fp {
        Fp(add_mod(&self.0, &b.0))
    }
    fn sub(&self, b: &Fp) -> Fp {
        let (r, borrow) = sub_raw(&self.0, &b.0);
        // a - b + 2^384 on a borrow: adding p wraps back below p (the carry is that 2^384)
        Fp(if borrow { add_raw(&r, &P).0 } else { r })
    }
    fn neg(&self) -> Fp {
        Fp::ZERO.sub(self)
    }
    fn is_zero(&self) -> bool {
        self.0 == [0; 6]
    }
    fn pow(&self, e: &Limbs) -> Fp {
        let mut r = ONE;
        for i in (0..384).rev() {
            r = r.square();
            if (e[i / 64] >> (i % 64)) & 1 == 1 {
                r = r.mul(self);
            }
        }
        r
    }
    /// From 48 big-endian bytes (flags already cleared); None if not below p.
    fn from_be(bytes: &[u8]) -> Option<Fp> {
        let mut x = [0u64; 6];
        for (i, chunk) in bytes.rchunks(8).enumerate() {
            x[i] = u64::from_be_bytes(chunk.try_into().unwrap());
        }
        (!geq(&x, &P)).then(|| Fp(x).mul(&Fp(R2)))
    }
    fn canonical(&self) -> Limbs {
        self.mul(&Fp([1, 0, 0, 0, 0, 0])).0
    }
    /// The zcash sign: the canonical value is above (p-1)/2.
    fn is_larger(&self) -> bool {
        let c = self.canonical();
        geq(&c, &P_MINUS1_DIV2) && c != P_MINUS1_DIV2
    }
    fn sqrt(&self) -> Option<Fp> {
        let r = self.pow(&P_PLUS1_DIV4);
        (r.square() == *self).then_some(r)
    }
}

/// c0 + c1·u, u² = -1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fp2(Fp, Fp);

impl Fp2 {
    fn mul(&self, b: &Fp2) -> Fp2 {
        let (a0b0, a1b1) = (self.0.mul(&b.0), self.1.mul(&b.1));
        let cross = self.0.add(&self.1).mul(&b.0.add(&b.1));
        Fp2(a0b0.sub(&a1b1), cross.sub(&a0b0).sub(&a1b1))
    }
    fn square(&self) -> Fp2 {
        self.mul(self)
    }
    fn add(&self, b: &Fp2) -> Fp2 {
        Fp2(self.0.add(&b.0), self.1.add(&b.1))
    }
    fn pow(&self, e: &Limbs) -> Fp2 {
        let mut r = Fp2(ONE, Fp::ZERO);
        for i in (0..384).rev() {
            r = r.square();
            if (e[i / 64] >> (i % 64)) & 1 == 1 {
                r = r.mul(self);
            }
        }
        r
    }
    /// Square root for p = 3 mod 4 (Adj and Rodríguez-Henríquez, "Square root computation
    /// over even extension fields", algorithm 9); None when there is none.
    fn sqrt(&self) -> Option<Fp2> {
        let minus_one = Fp2(ONE.neg(), Fp::ZERO);
        let a1 = self.pow(&P_SHR2);
        let alpha = a1.mul(&a1.mul(self));
        let x0 = a1.mul(self);
        let x = if alpha == minus_one {
            Fp2(x0.1.neg(), x0.0) // u·x0
        } else {
            alpha.add(&Fp2(ONE, Fp::ZERO)).pow(&P_MINUS1_DIV2).mul(&x0)
        };
        (x.square() == *self).then_some(x)
    }
    /// The zcash sign of an Fp2: c1's, or c0's when c1 is zero.
    fn is_larger(&self) -> bool {
        if self.1.is_zero() {
            self.0.is_larger()
        } else {
            self.1.is_larger()
        }
    }
}

/// The flags of a compressed point: Ok(None) for infinity, else Ok(Some(larger-y bit)).
fn flags(b0: u8, rest: &[u8], what: &str) -> Result<Option<bool>, String> {
    if b0 & 0x80 == 0 {
        return Err(format!("{what} is not compressed (first byte {b0:#04x})"));
    }
    if b0 & 0x40 != 0 {
        if b0 & 0x3f != 0 || rest.iter().any(|&x| x != 0) {
            return Err(format!("{what} has the infinity flag and a coordinate"));
        }
        return Ok(None);
    }
    Ok(Some(b0 & 0x20 != 0))
}

fn cleared(bytes: &[u8]) -> [u8; 48] {
    let mut x: [u8; 48] = bytes.try_into().unwrap();
    x[0] &= 0x1f;
    x
}

/// A compressed G1 point (48 bytes) as x‖y in memory form (12 limbs).
fn g1(bytes: &[u8], what: &str, out: &mut [u64]) -> Result<(), String> {
    let Some(larger) = flags(bytes[0], &bytes[1..], what)? else {
        out.fill(0);
        return Ok(());
    };
    let x = Fp::from_be(&cleared(bytes)).ok_or_else(|| format!("{what}: x is not below p"))?;
    let four = Fp(pow2_mod(386)); // 4 in Montgomery form: 4·2^384
    let y = x.square().mul(&x).add(&four).sqrt().ok_or_else(|| format!("{what}: x is not on the curve"))?;
    let y = if y.is_larger() == larger { y } else { y.neg() };
    out[..6].copy_from_slice(&x.0);
    out[6..12].copy_from_slice(&y.0);
    Ok(())
}

/// A compressed G2 point (96 bytes, x.c1 first) as x.c0‖x.c1‖y.c0‖y.c1 (24 limbs).
fn g2(bytes: &[u8], what: &str, out: &mut [u64]) -> Result<(), String> {
    let Some(larger) = flags(bytes[0], &bytes[1..], what)? else {
        out.fill(0);
        return Ok(());
    };
    let c1 = Fp::from_be(&cleared(&bytes[..48])).ok_or_else(|| format!("{what}: x.c1 is not below p"))?;
    let c0 = Fp::from_be(&bytes[48..]).ok_or_else(|| format!("{what}: x.c0 is not below p"))?;
    let x = Fp2(c0, c1);
    let four = Fp(pow2_mod(386));
    let rhs = x.square().mul(&x).add(&Fp2(four, four)); // b = 4(1 + u)
    let y = rhs.sqrt().ok_or_else(|| format!("{what}: x is not on the curve"))?;
    let y = if y.is_larger() == larger { y } else { Fp2(y.0.neg(), y.1.neg()) };
    for (i, f) in [x.0, x.1, y.0, y.1].iter().enumerate() {
        out[i * 6..i * 6 + 6].copy_from_slice(&f.0);
    }
    Ok(())
}

/// bellperson's in-memory Proof<Bls12>: A (12 limbs), B (24), C (12); 384 bytes.
pub(crate) type MemProof = [u64; 48];

/// libcuzk's 192 bytes (A‖B‖C compressed) as a [`MemProof`]; Err says which point and why.
pub(crate) fn proof_from_bytes(bytes: &[u8; 192]) -> Result<MemProof, String> {
    let mut out = [0u64; 48];
    g1(&bytes[..48], "A", &mut out[..12])?;
    g2(&bytes[48..144], "B", &mut out[12..36])?;
    g1(&bytes[144..], "C", &mut out[36..])?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex48(s: &str) -> [u8; 48] {
        let mut b = [0u8; 48];
        for (i, out) in b.iter_mut().enumerate() {
            *out = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
        }
        b
    }
    fn canonical_be(limbs: &[u64]) -> [u8; 48] {
        let c = Fp(limbs.try_into().unwrap()).canonical();
        let mut b = [0u8; 48];
        for i in 0..6 {
            b[40 - 8 * i..48 - 8 * i].copy_from_slice(&c[i].to_be_bytes());
        }
        b
    }

    // The generators of docs/formats.md: x compressed with its sign flag, y known.
    const G1X: &str =
        "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb";
    const G1Y: &str =
        "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1";
    const G2X0: &str =
        "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8";
    const G2X1: &str =
        "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e";
    const G2Y0: &str =
        "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801";
    const G2Y1: &str =
        "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be";

    #[test]
    fn generators_decompress_to_their_known_y_for_both_signs() {
        for sign in [0u8, 0x20] {
            let mut x = hex48(G1X);
            x[0] |= 0x80 | sign;
            let mut out = [0u64; 12];
            g1(&x, "g1", &mut out).unwrap();
            assert_eq!(canonical_be(&out[..6]), hex48(G1X));
            let y = canonical_be(&out[6..]);
            // the generator's y is the smaller root: flag 0 gives it, flag 0x20 gives p - y
            assert_eq!(y == hex48(G1Y), sign == 0);
            assert_eq!(Fp(out[6..].try_into().unwrap()).is_larger(), sign != 0);

            let mut x = [0u8; 96];
            x[..48].copy_from_slice(&hex48(G2X1));
            x[48..].copy_from_slice(&hex48(G2X0));
            x[0] |= 0x80 | sign;
            let mut out = [0u64; 24];
            g2(&x, "g2", &mut out).unwrap();
            assert_eq!((canonical_be(&out[..6]), canonical_be(&out[6..12])), (hex48(G2X0), hex48(G2X1)));
            let y = (canonical_be(&out[12..18]), canonical_be(&out[18..]));
            assert_eq!(y == (hex48(G2Y0), hex48(G2Y1)), sign == 0);
        }
    }

    #[test]
    fn bad_points_are_refused() {
        let mut inf = [0u8; 48];
        inf[0] = 0xc0;
        let mut out = [7u64; 12];
        g1(&inf, "A", &mut out).unwrap();
        assert_eq!(out, [0; 12], "infinity is all zeros");
        inf[47] = 1;
        assert!(g1(&inf, "A", &mut out).unwrap_err().contains("infinity flag"));
        let mut x = hex48(G1X);
        assert!(g1(&x, "A", &mut out).unwrap_err().contains("not compressed"));
        x[0] |= 0x80;
        x[47] ^= 1; // x + 1 (or - 1): about half of all x have no point
        let mut misses = 0;
        for k in 0..8u8 {
            x[47] ^= k;
            misses += g1(&x, "A", &mut out).is_err_and(|e| e.contains("not on the curve")) as u32;
            x[47] ^= k;
        }
        assert!(misses > 0, "some x off the curve must be refused");
        let mut big = [0xffu8; 48];
        big[0] = 0x9f;
        assert!(g1(&big, "A", &mut out).unwrap_err().contains("not below p"));
    }
}
