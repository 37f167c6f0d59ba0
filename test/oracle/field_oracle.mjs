// Checks libcuzk's BLS12-381 output (a corpus from build/test/tools/field_corpus) against
// @noble/curves: k·G, sums and encodings byte for byte, and accept/reject verdicts on good
// and malformed encodings. Usage: node field_oracle.mjs corpus.txt. Prints ok / not ok.
import { readFileSync } from 'node:fs';
import { bls12_381 as bls } from '@noble/curves/bls12-381';

const G1 = bls.G1.ProjectivePoint;
const G2 = bls.G2.ProjectivePoint;

// Where libcuzk is deliberately stricter than noble's fromHex (libcuzk follows blst and
// bellperson; noble is lenient here). Each entry: group/kind -> libcuzk's verdict.
//  - noble reduces coordinates mod p instead of rejecting values >= p;
//  - noble reads unflagged all-zero uncompressed bytes as infinity (blst: not on curve);
//  - noble's G1 decoder ignores the sort bit on uncompressed points and on infinity, and
//    reduces a compressed infinity payload mod p (so x = p counts as zero).
const DOCUMENTED = {
  'g1/noncanon_c': 'enoncanonical', 'g1/noncanon_u': 'enoncanonical',
  'g2/noncanon_c': 'enoncanonical', 'g2/noncanon_u': 'enoncanonical',
  'g1/zeros_00_u': 'enotoncurve', 'g2/zeros_00_u': 'enotoncurve',
  'g1/sort_unc': 'eflags', 'g1/zeros_20_u': 'eflags', 'g1/zeros_60_u': 'eflags',
  'g1/zeros_e0_c': 'eflags', 'g1/inf_payload_p': 'eflags',
};

const hex = (u8) => Buffer.from(u8).toString('hex');
let failures = 0;
const bad = { mul: 0, sum: 0, dec: 0 };
const fail = (msg, what) => { bad[what]++; if (++failures <= 20) console.log(`# ${msg}`); };

const lines = readFileSync(process.argv[2], 'utf8').split('\n').filter((l) => l && !l.startsWith('seed:'));
let muls = 0, sums = 0, decs = 0, agreeAccept = 0, agreeReject = 0;
const documented = {};

for (const line of lines) {
  const f = line.split(' ');
  if (f[0] === 'mul') {
    const k = BigInt('0x' + f[1]);
    const p1 = G1.BASE.multiply(k), p2 = G2.BASE.multiply(k);
    const want = [p1.toHex(true), p1.toHex(false), p2.toHex(true), p2.toHex(false)];
    for (let i = 0; i < 4; i++)
      if (want[i] !== f[2 + i]) fail(`k=${f[1]}: ${['G1 compressed', 'G1 uncompressed', 'G2 compressed', 'G2 uncompressed'][i]} differs`, 'mul');
    muls++;
  } else if (f[0] === 'sum') {
    const a = BigInt('0x' + f[1]), b = BigInt('0x' + f[2]);
    const s1 = G1.BASE.multiply(a).add(G1.BASE.multiply(b));
    const s2 = G2.BASE.multiply(a).add(G2.BASE.multiply(b));
    if (s1.toHex(true) !== f[3]) fail(`a=${f[1]} b=${f[2]}: G1 sum differs`, 'sum');
    if (s2.toHex(true) !== f[4]) fail(`a=${f[1]} b=${f[2]}: G2 sum differs`, 'sum');
    sums++;
  } else if (f[0] === 'dec') {
    const [, group, kind, enc, verdict, reenc] = f;
    const P = group === 'g1' ? G1 : G2;
    let noble = null;
    try {
      const pt = P.fromHex(enc === '-' ? '' : enc);
      pt.assertValidity();
      noble = pt;
    } catch (e) { noble = null; }
    decs++;
    const libOk = verdict === 'ok';
    if (libOk && noble) {
      if (hex(noble.toRawBytes(false)) !== reenc) fail(`${group} ${kind} ${enc}: decoded to different points`, 'dec');
      else agreeAccept++;
    } else if (!libOk && !noble) agreeReject++;
    else if (!libOk && noble && DOCUMENTED[`${group}/${kind}`] === verdict) {
      documented[`${group}/${kind}`] = (documented[`${group}/${kind}`] || 0) + 1;
    } else {
      fail(`${group} ${kind} ${enc}: libcuzk says ${verdict}, noble ${noble ? 'accepts' : 'rejects'}`, 'dec');
    }
  }
}

if (muls === 0 || sums === 0 || decs === 0) { console.log('not ok - empty corpus'); failures++; }
console.log(`${bad.mul ? 'not ok' : 'ok'} - k·G1 and k·G2 (compressed and uncompressed) equal noble for ${muls} random scalars`);
console.log(`${bad.sum ? 'not ok' : 'ok'} - G1 and G2 sums (random, doubling, P + -P) equal noble for ${sums} pairs`);
console.log(`${bad.dec ? 'not ok' : 'ok'} - decoding verdicts agree with noble on ${decs} encodings ` +
  `(${agreeAccept} accepted, ${agreeReject} rejected by both)`);
const docs = Object.entries(documented).map(([k, n]) => `${k} x${n}`).join(', ');
console.log(`ok - documented differences (libcuzk rejects, noble accepts): ${docs || 'none hit'}`);
process.exit(failures ? 1 : 0);
