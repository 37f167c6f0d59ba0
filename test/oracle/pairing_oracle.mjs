// Pairings of libcuzk against @noble/curves (independent implementation): Gt values
// coefficient by coefficient, multi-pairing products, and agreement on pairing equalities
// e(aG1, bG2) == e(cG1, dG2) for equal and unequal products ab, cd.
// Usage: node pairing_oracle.mjs <path to build/test/tools/pairing_tool>. Prints ok/not ok.
import { spawnSync } from 'node:child_process';
import { bls12_381 as bls } from '@noble/curves/bls12-381';

const tool = process.argv[2];
const r = bls.fields.Fr.ORDER;
const Fp12 = bls.fields.Fp12;
const G1 = bls.G1.ProjectivePoint, G2 = bls.G2.ProjectivePoint;

// splitmix64, seeded from CUZK_TEST_SEED when set so a failure replays.
let state = BigInt(process.env.CUZK_TEST_SEED || '0x' + Math.floor(Math.random() * 2 ** 52).toString(16));
console.log(`# seed: 0x${state.toString(16)} (replay with CUZK_TEST_SEED=0x${state.toString(16)})`);
const M64 = (1n << 64n) - 1n;
function rand64() {
  state = (state + 0x9e3779b97f4a7c15n) & M64;
  let z = state;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
  return z ^ (z >> 31n);
}
const randScalar = () => 1n + ((rand64() << 192n | rand64() << 128n | rand64() << 64n | rand64()) % (r - 1n));
const mod = (a) => ((a % r) + r) % r;
const inv = (a) => { let [x, y, u, v] = [mod(a), r, 1n, 0n]; while (x !== 1n) { const q = y / x; [x, y] = [y - q * x, x]; [u, v] = [v - q * u, u]; } return mod(u); };

const hex = (v) => v.toString(16).padStart(96, '0');
const g1s = (P) => { if (P.equals(G1.ZERO)) return `${hex(0n)} ${hex(0n)}`; const a = P.toAffine(); return `${hex(a.x)} ${hex(a.y)}`; };
const g2s = (Q) => {
  if (Q.equals(G2.ZERO)) return Array(4).fill(hex(0n)).join(' ');
  const a = Q.toAffine();
  return `${hex(a.x.c0)} ${hex(a.x.c1)} ${hex(a.y.c0)} ${hex(a.y.c1)}`;
};
const fp12s = (e) => [e.c0.c0, e.c0.c1, e.c0.c2, e.c1.c0, e.c1.c1, e.c1.c2].flatMap((c) => [hex(c.c0), hex(c.c1)]).join(' ');
// noble refuses the point at infinity; it contributes 1 by definition.
const nobleProduct = (pairs) => {
  const live = pairs.filter(([P, Q]) => !P.equals(G1.ZERO) && !Q.equals(G2.ZERO));
  return live.length ? bls.pairingBatch(live.map(([P, Q]) => ({ g1: P, g2: Q }))) : Fp12.ONE;
};

const requests = [], checks = [];
const ask = (line, check) => { requests.push(line); checks.push(check); };

// 1. Gt values, coefficient by coefficient (the generators first).
const single = [[G1.BASE, G2.BASE]];
for (let i = 0; i < 5; i++) single.push([G1.BASE.multiply(randScalar()), G2.BASE.multiply(randScalar())]);
for (const [P, Q] of single) {
  const want = fp12s(bls.pairing(P, Q));
  ask(`e ${g1s(P)} ${g2s(Q)}`, (got) => [got === want, 'e(P, Q) equals noble coefficient by coefficient']);
}

// 2. Equalities e(aG1, bG2) == e(cG1, dG2): half with ab = cd, half unrelated, both sides asked.
let equalCases = 0;
for (let i = 0; i < 10; i++) {
  const a = randScalar(), b = randScalar(), c = randScalar();
  const d = i % 2 === 0 ? mod(a * b * inv(c)) : randScalar();
  const P1 = G1.BASE.multiply(a), Q1 = G2.BASE.multiply(b), P2 = G1.BASE.multiply(c), Q2 = G2.BASE.multiply(d);
  const noble = Fp12.eql(bls.pairing(P1, Q1), bls.pairing(P2, Q2));
  if (noble !== (mod(a * b) === mod(c * d))) { console.log('not ok - noble disagrees with the scalars (oracle broken)'); process.exit(1); }
  if (noble) equalCases++;
  ask(`q ${g1s(P1)} ${g2s(Q1)} ${g1s(P2)} ${g2s(Q2)}`, (got) => [got === (noble ? '1' : '0'), `equality agreement (${noble ? 'equal' : 'unequal'} products)`]);
}
// with infinity: e(O, Q) = e(P, O) = 1
{
  const P = G1.BASE.multiply(randScalar()), Q = G2.BASE.multiply(randScalar());
  ask(`q ${g1s(G1.ZERO)} ${g2s(Q)} ${g1s(P)} ${g2s(G2.ZERO)}`, (got) => [got === '1', 'e(O, Q) == e(P, O)']);
  ask(`q ${g1s(G1.ZERO)} ${g2s(Q)} ${g1s(P)} ${g2s(Q)}`, (got) => [got === '0', 'e(O, Q) != e(P, Q)']);
}

// 3. Multi-pairing products (with infinities mixed in) against noble's batch pairing.
for (const n of [1, 2, 3, 4, 9]) {
  const pairs = [];
  for (let i = 0; i < n; i++) {
    const P = (i === 2) ? G1.ZERO : G1.BASE.multiply(randScalar());
    const Q = (i === 7) ? G2.ZERO : G2.BASE.multiply(randScalar());
    pairs.push([P, Q]);
  }
  const want = fp12s(nobleProduct(pairs));
  ask(`m ${n} ${pairs.map(([P, Q]) => `${g1s(P)} ${g2s(Q)}`).join(' ')}`, (got) => [got === want, `product of ${n} pairings equals noble`]);
}

const run = spawnSync(tool, [], { input: requests.join('\n') + '\n', encoding: 'utf8' });
if (run.status !== 0) { console.log(`not ok - ${tool} exited ${run.status}: ${run.stderr}`); process.exit(1); }
const answers = run.stdout.trim().split('\n');
let failed = 0;
checks.forEach((check, i) => {
  const [ok, what] = check((answers[i] || '').trim());
  if (!ok) failed++;
  console.log(`${ok ? 'ok' : 'not ok'} - ${what}`);
});
console.log(`${equalCases > 0 && equalCases < 10 ? 'ok' : 'not ok'} - equality cases mix equal (${equalCases}) and unequal products`);
process.exit(failed ? 1 : 0);
