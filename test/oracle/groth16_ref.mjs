// An independent reference for libcuzk's Groth16 (FORMATS.md), written only for the tests on
// @noble/curves and plain BigInt arithmetic: it shares no code with the C library. It reads
// circom .r1cs/.wtns itself, makes the TEST-ONLY key from a seed (Lagrange basis in closed
// form, not by FFT), proves (polynomials by naive DFT and schoolbook division by X^m - 1,
// MSMs as plain sums) and verifies with noble's pairing.
//
//   node groth16_ref.mjs setup  C.r1cs SEEDHEX OUT.params OUT.vk
//   node groth16_ref.mjs prove  C.r1cs W.wtns P.params RSSEEDHEX OUT.proof
//   node groth16_ref.mjs verify V.vk P.proof C.r1cs W.wtns [bump] (exit 0 valid, 1 invalid;
//                                                 bump: first public input + 1)
//   node groth16_ref.mjs where  P.params OFFSET                 (names the field at a byte offset)
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { bls12_381 as bls } from '@noble/curves/bls12-381';

const R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
const P = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn;
const G1 = bls.G1.ProjectivePoint, G2 = bls.G2.ProjectivePoint;
const Fp12 = bls.fields.Fp12;

// ---- Fr ----
const mod = (a) => ((a % R) + R) % R;
function pow(b, e) {
  let r = 1n; b = mod(b);
  for (; e > 0n; e >>= 1n, b = (b * b) % R) if (e & 1n) r = (r * b) % R;
  return r;
}
const inv = (a) => { if (mod(a) === 0n) throw new Error('inverse of 0'); return pow(a, R - 2n); };
function rootOfUnity(logM) { // bellperson: 7^((r-1)/2^32), squared 32 - k times
  let w = pow(7n, (R - 1n) >> 32n);
  for (let i = logM; i < 32; i++) w = (w * w) % R;
  return w;
}

// ---- bytes ----
const leInt = (b) => { let x = 0n; for (let i = b.length - 1; i >= 0; i--) x = (x << 8n) | BigInt(b[i]); return x; };
const beInt = (b) => { let x = 0n; for (const v of b) x = (x << 8n) | BigInt(v); return x; };
function beBytes(x, n) { const o = new Uint8Array(n); for (let i = n - 1; i >= 0; i--) { o[i] = Number(x & 0xffn); x >>= 8n; } return o; }
function u32be(v) { return beBytes(BigInt(v), 4); }
const concat = (parts) => Buffer.concat(parts.map((p) => Buffer.from(p)));
const hexToBytes = (h) => { if (!/^[0-9a-fA-F]{64}$/.test(h)) throw new Error('seed must be 64 hex digits'); return Buffer.from(h, 'hex'); };

// Seeded scalars as groth16.h documents: int_le(SHA-256(seed || label)) mod r.
const seeded = (seed, label) => mod(leInt(createHash('sha256').update(seed).update(Buffer.from(label, 'ascii')).digest()));

// ---- circom files (the iden3 container, read independently of the C reader) ----
function sections(buf, magic) {
  if (buf.subarray(0, 4).toString('latin1') !== magic) throw new Error(`not a ${magic} file`);
  const n = buf.readUInt32LE(8), out = {};
  let o = 12;
  for (let i = 0; i < n; i++) {
    const id = buf.readUInt32LE(o), size = Number(buf.readBigUInt64LE(o + 4));
    out[id] = buf.subarray(o + 12, o + 12 + size);
    o += 12 + size;
  }
  return out;
}
function readR1cs(path) {
  const s = sections(readFileSync(path), 'r1cs'), h = s[1];
  if (h.readUInt32LE(0) !== 32 || leInt(h.subarray(4, 36)) !== R) throw new Error('not over BLS12-381 r');
  const nWires = h.readUInt32LE(36), nOut = h.readUInt32LE(40), nPubIn = h.readUInt32LE(44);
  const nCons = h.readUInt32LE(60), c = s[2];
  let o = 0;
  const lc = () => {
    const n = c.readUInt32LE(o); o += 4;
    const terms = [];
    for (let i = 0; i < n; i++, o += 36) {
      const coeff = leInt(c.subarray(o + 4, o + 36));
      if (coeff !== 0n) terms.push([c.readUInt32LE(o), coeff]);
    }
    return terms;
  };
  const cons = [];
  for (let k = 0; k < nCons; k++) cons.push([lc(), lc(), lc()]);
  const nInputs = 1 + nOut + nPubIn;
  return { nWires, nInputs, nAux: nWires - nInputs, cons };
}
function readWtns(path) {
  const s = sections(readFileSync(path), 'wtns'), n = s[1].readUInt32LE(36), v = [];
  for (let i = 0; i < n; i++) v.push(leInt(s[2].subarray(32 * i, 32 * i + 32)));
  return v;
}

// ---- the domain and the per-variable polynomials at tau ----
function domainOf(cs) {
  const n = cs.cons.length + cs.nInputs;
  let logM = 0;
  while ((1 << logM) < n) logM++;
  return { m: 1 << logM, logM, omega: rootOfUnity(logM) };
}
// Constraint rows with bellperson's appended input rows (A = input i, B = C = 0).
function rows(cs) {
  const all = cs.cons.slice();
  for (let i = 0; i < cs.nInputs; i++) all.push([[[i, 1n]], [], []]);
  return all;
}
// Which variables appear (nonzero coefficient) on each side.
function densities(cs) {
  const inA = new Array(cs.nWires).fill(false), inB = new Array(cs.nWires).fill(false);
  for (const [a, b] of rows(cs)) {
    for (const [w] of a) inA[w] = true;
    for (const [w] of b) inB[w] = true;
  }
  return { inA, inB };
}

// ---- setup ----
function setup(cs, seed) {
  const t = {};
  for (const k of ['alpha', 'beta', 'gamma', 'delta', 'tau']) t[k] = seeded(seed, `cuzk-test-setup-${k}`);
  const { m, omega } = domainOf(cs);
  // Lagrange basis at tau, closed form: l_j(tau) = (tau^m - 1) * omega^j / (m * (tau - omega^j))
  const zt = mod(pow(t.tau, BigInt(m)) - 1n), lag = [];
  let wj = 1n;
  for (let j = 0; j < m; j++, wj = (wj * omega) % R) lag.push(mod(zt * wj % R * inv(BigInt(m) * mod(t.tau - wj))));
  const u = new Array(cs.nWires).fill(0n), v = u.slice(), w = u.slice();
  rows(cs).forEach(([a, b, c], k) => {
    for (const [x, co] of a) u[x] = mod(u[x] + co * lag[k]);
    for (const [x, co] of b) v[x] = mod(v[x] + co * lag[k]);
    for (const [x, co] of c) w[x] = mod(w[x] + co * lag[k]);
  });
  const g1 = (k) => (k === 0n ? G1.ZERO : G1.BASE.multiply(k));
  const g2 = (k) => (k === 0n ? G2.ZERO : G2.BASE.multiply(k));
  const gi = inv(t.gamma), di = inv(t.delta);
  const vk = { alpha1: g1(t.alpha), beta1: g1(t.beta), beta2: g2(t.beta), gamma2: g2(t.gamma),
               delta1: g1(t.delta), delta2: g2(t.delta), ic: [] };
  const pk = { vk, h: [], l: [], a: [], b1: [], b2: [] };
  for (let i = 0; i < cs.nWires; i++) {
    const lin = mod(t.beta * u[i] + t.alpha * v[i] + w[i]);
    if (i < cs.nInputs) vk.ic.push(g1(lin * gi % R));
    else pk.l.push(g1(lin * di % R));
  }
  // a, b queries: only variables with a nonzero polynomial; that must be the density
  const { inA, inB } = densities(cs);
  for (let i = 0; i < cs.nWires; i++) {
    if ((u[i] !== 0n) !== inA[i]) throw new Error(`variable ${i}: u = 0 disagrees with the A density`);
    if ((v[i] !== 0n) !== inB[i]) throw new Error(`variable ${i}: v = 0 disagrees with the B density`);
    if (u[i] !== 0n) pk.a.push(g1(u[i]));
    if (v[i] !== 0n) { pk.b1.push(g1(v[i])); pk.b2.push(g2(v[i])); }
  }
  let ti = zt * di % R; // tau^i (tau^m - 1) / delta
  for (let i = 0; i < m - 1; i++, ti = ti * t.tau % R) pk.h.push(g1(ti));
  return pk;
}

// ---- encodings (FORMATS.md, written out here; cross-checked against noble's own) ----
function encG1(p, compressed) {
  if (p.equals(G1.ZERO)) { const o = new Uint8Array(compressed ? 48 : 96); o[0] = compressed ? 0xc0 : 0x40; return o; }
  const { x, y } = p.toAffine();
  if (!compressed) return concat([beBytes(x, 48), beBytes(y, 48)]);
  const o = beBytes(x, 48);
  o[0] |= 0x80 | (y > (P - 1n) / 2n ? 0x20 : 0);
  return o;
}
function encG2(p, compressed) {
  if (p.equals(G2.ZERO)) { const o = new Uint8Array(compressed ? 96 : 192); o[0] = compressed ? 0xc0 : 0x40; return o; }
  const { x, y } = p.toAffine();
  if (!compressed) return concat([beBytes(x.c1, 48), beBytes(x.c0, 48), beBytes(y.c1, 48), beBytes(y.c0, 48)]);
  const o = concat([beBytes(x.c1, 48), beBytes(x.c0, 48)]);
  const sy = y.c1 !== 0n ? y.c1 : y.c0;
  o[0] |= 0x80 | (sy > (P - 1n) / 2n ? 0x20 : 0);
  return o;
}
function checkEnc(p, isG2) {
  const mine = [isG2 ? encG2(p, false) : encG1(p, false), isG2 ? encG2(p, true) : encG1(p, true)];
  const noble = [p.toRawBytes(false), p.toRawBytes(true)];
  for (let i = 0; i < 2; i++)
    if (Buffer.compare(Buffer.from(mine[i]), Buffer.from(noble[i])) !== 0) throw new Error('encoding disagrees with noble');
}
function vkBytes(vk) {
  return concat([encG1(vk.alpha1), encG1(vk.beta1), encG2(vk.beta2), encG2(vk.gamma2), encG1(vk.delta1),
                 encG2(vk.delta2), u32be(vk.ic.length), ...vk.ic.map((p) => encG1(p))]);
}
function paramsBytes(pk) {
  const list = (pts, enc) => [u32be(pts.length), ...pts.map((p) => enc(p))];
  return concat([vkBytes(pk.vk), ...list(pk.h, encG1), ...list(pk.l, encG1), ...list(pk.a, encG1),
                 ...list(pk.b1, encG1), ...list(pk.b2, encG2)]);
}

// ---- reading keys back (for prove and verify) ----
function readParams(buf, vkOnly) {
  let o = 0;
  const g1 = () => { const x = beInt(buf.subarray(o, o + 48)), y = beInt(buf.subarray(o + 48, o + 96)); o += 96; return G1.fromAffine({ x, y }); };
  const g2 = () => {
    const f = (k) => beInt(buf.subarray(o + 48 * k, o + 48 * k + 48));
    const p = G2.fromAffine({ x: { c0: f(1), c1: f(0) }, y: { c0: f(3), c1: f(2) } });
    o += 192; return p;
  };
  const n = () => { const v = buf.readUInt32BE(o); o += 4; return v; };
  const vec = (rd) => { const k = n(), out = []; for (let i = 0; i < k; i++) out.push(rd()); return out; };
  const vk = { alpha1: g1(), beta1: g1(), beta2: g2(), gamma2: g2(), delta1: g1(), delta2: g2() };
  vk.ic = vec(g1);
  if (vkOnly) { if (o !== buf.length) throw new Error('vk has trailing bytes'); return { vk }; }
  const pk = { vk, h: vec(g1), l: vec(g1), a: vec(g1), b1: vec(g1), b2: vec(g2) };
  if (o !== buf.length) throw new Error('params have trailing bytes');
  return pk;
}

// ---- proving ----
function evalLc(lc, wit) { let s = 0n; for (const [x, c] of lc) s += c * wit[x]; return mod(s); }
function interpolate(vals, m, omega) { // coefficients from evaluations on <omega>: naive inverse DFT
  const oi = inv(omega), mi = inv(BigInt(m)), out = [];
  for (let i = 0; i < m; i++) {
    let s = 0n, wi = pow(oi, BigInt(i)), wij = 1n;
    for (let j = 0; j < m; j++, wij = wij * wi % R) s += (vals[j] ?? 0n) * wij;
    out.push(mod(s) * mi % R);
  }
  return out;
}
function hCoefficients(cs, wit) {
  const { m, omega } = domainOf(cs);
  const ev = [[], [], []];
  for (const r of rows(cs)) for (let s = 0; s < 3; s++) ev[s].push(evalLc(r[s], wit));
  const [A, B, C] = ev.map((e) => interpolate(e, m, omega));
  const prod = new Array(2 * m - 1).fill(0n);
  for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) prod[i + j] += A[i] * B[j];
  for (let i = 0; i < m; i++) prod[i] -= C[i];
  for (let i = 0; i < prod.length; i++) prod[i] = mod(prod[i]);
  const q = new Array(m - 1).fill(0n); // schoolbook division by X^m - 1
  for (let d = 2 * m - 2; d >= m; d--) { q[d - m] = prod[d]; prod[d - m] = mod(prod[d - m] + prod[d]); }
  for (let i = 0; i < m; i++) if (prod[i] !== 0n) throw new Error('A*B - C is not divisible by Z: the witness does not satisfy the circuit');
  return q;
}
function msm(points, scalars, Zero) {
  if (points.length !== scalars.length) throw new Error(`MSM of ${points.length} points and ${scalars.length} scalars`);
  let acc = Zero;
  for (let i = 0; i < points.length; i++) if (scalars[i] !== 0n) acc = acc.add(points[i].multiply(scalars[i]));
  return acc;
}
const mul = (p, k, Zero) => (k === 0n ? Zero : p.multiply(k));

function prove(cs, wit, pk, rsSeed) {
  if (wit.length !== cs.nWires || wit[0] !== 1n) throw new Error('witness does not fit the circuit');
  const h = hCoefficients(cs, wit);
  const { inA, inB } = densities(cs);
  const aux = wit.slice(cs.nInputs);
  const aSc = [], bSc = [];
  for (let i = 0; i < cs.nWires; i++) {
    if (i < cs.nInputs || inA[i]) aSc.push(wit[i]); // a query: inputs dense, aux by density
    if (inB[i]) bSc.push(wit[i]);
  }
  const H = msm(pk.h, h, G1.ZERO), L = msm(pk.l, aux, G1.ZERO);
  const Aans = msm(pk.a, aSc, G1.ZERO), B1 = msm(pk.b1, bSc, G1.ZERO), B2 = msm(pk.b2, bSc, G2.ZERO);
  const r = seeded(rsSeed, 'cuzk-test-prove-r'), s = seeded(rsSeed, 'cuzk-test-prove-s');
  const vk = pk.vk;
  const A = vk.alpha1.add(Aans).add(mul(vk.delta1, r, G1.ZERO));
  const B = vk.beta2.add(B2).add(mul(vk.delta2, s, G2.ZERO));
  const C = mul(Aans, s, G1.ZERO).add(mul(B1, r, G1.ZERO)).add(mul(vk.delta1, r * s % R, G1.ZERO))
    .add(mul(vk.alpha1, s, G1.ZERO)).add(mul(vk.beta1, r, G1.ZERO)).add(H).add(L);
  return concat([encG1(A, true), encG2(B, true), encG1(C, true)]);
}

function verify(vk, proof, pub) {
  const A = G1.fromHex(proof.subarray(0, 48)), B = G2.fromHex(proof.subarray(48, 144)), C = G1.fromHex(proof.subarray(144, 192));
  if (pub.length + 1 !== vk.ic.length) throw new Error(`${pub.length} public inputs for ${vk.ic.length} ic points`);
  let acc = vk.ic[0];
  pub.forEach((x, i) => { acc = acc.add(mul(vk.ic[i + 1], x, G1.ZERO)); });
  const lhs = bls.pairing(A, B);
  const rhs = Fp12.mul(Fp12.mul(bls.pairing(vk.alpha1, vk.beta2), bls.pairing(acc, vk.gamma2)), bls.pairing(C, vk.delta2));
  return Fp12.eql(lhs, rhs);
}

// Names the params field at a byte offset (to explain a mismatch).
function where(buf, off) {
  const names = ['alpha_g1', 'beta_g1', 'beta_g2', 'gamma_g2', 'delta_g1', 'delta_g2'], sizes = [96, 96, 192, 192, 96, 192];
  let o = 0;
  for (let i = 0; i < 6; i++) { if (off < o + sizes[i]) return `${names[i]} byte ${off - o}`; o += sizes[i]; }
  for (const [name, sz] of [['ic', 96], ['h', 96], ['l', 96], ['a', 96], ['b_g1', 96], ['b_g2', 192]]) {
    if (o + 4 > buf.length) break;
    const n = buf.readUInt32BE(o);
    if (off < o + 4) return `${name} count (${n})`;
    o += 4;
    if (off < o + n * sz) return `${name}[${Math.floor((off - o) / sz)}] of ${n}, byte ${(off - o) % sz}`;
    o += n * sz;
  }
  return `past the end (${buf.length} bytes)`;
}

// ---- command line ----
const [cmd, ...a] = process.argv.slice(2);
try {
  if (cmd === 'setup') {
    const cs = readR1cs(a[0]), pk = setup(cs, hexToBytes(a[1]));
    checkEnc(pk.vk.alpha1, false); checkEnc(pk.vk.beta2, true);
    writeFileSync(a[2], paramsBytes(pk));
    writeFileSync(a[3], vkBytes(pk.vk));
    console.log(`reference setup: ${cs.cons.length} constraints, ${cs.nInputs} inputs, ${cs.nAux} aux, m = ${domainOf(cs).m}`);
  } else if (cmd === 'prove') {
    const cs = readR1cs(a[0]), wit = readWtns(a[1]), pk = readParams(readFileSync(a[2]), false);
    const proof = prove(cs, wit, pk, hexToBytes(a[3]));
    if (!verify(pk.vk, proof, wit.slice(1, cs.nInputs))) throw new Error('the reference proof does not verify');
    writeFileSync(a[4], proof);
    console.log('reference proof written and verified');
  } else if (cmd === 'verify') {
    const { vk } = readParams(readFileSync(a[0]), true), proof = readFileSync(a[1]);
    const cs = readR1cs(a[2]), wit = readWtns(a[3]);
    const pub = wit.slice(1, cs.nInputs);
    if (a[4] === 'bump') pub[0] = mod(pub[0] + 1n);
    const ok = verify(vk, proof, pub);
    console.log(ok ? 'valid' : 'invalid');
    process.exit(ok ? 0 : 1);
  } else if (cmd === 'where') {
    console.log(where(readFileSync(a[0]), Number(a[1])));
  } else {
    console.error('usage: groth16_ref.mjs setup|prove|verify|where ...');
    process.exit(2);
  }
} catch (e) {
  console.error(`groth16_ref: ${e.message}`);
  process.exit(2);
}
