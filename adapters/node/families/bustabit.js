'use strict';
// bustabit's hash-chain Crash and its clones, ported from the spec (spec/bustabit/*.yaml),
// whose facts come from shared/research/hash-chain-and-stake.md. Written from the spec's
// prose, in the sources' own language: every multiplier is computed with JavaScript
// numbers in the order the spec gives, which is what the operators' code does.

const crypto = require('crypto');
const { InvalidInput } = require('../lib');

const CHAIN_RULES = ['raw-bytes', 'hex-text'];
const V2_READINGS = ['bustabit', 'bcgame'];
const V1_READINGS = ['bustabit', 'roobet'];
const V1_MODULUS = { bustabit: 101, roobet: 33 };
const V1_INSTANT_CRASH = { bustabit: 0, roobet: 1 };
const HASH = /^[0-9a-f]{64}$/;
const E = Math.pow(2, 52);

// One SHA-256: crypto.hash (Node 20.12 and later) is about twice as fast as createHash for
// these 32- and 64-byte inputs, which matters over millions of chain steps.
const sha256 = crypto.hash
  ? (data, encoding) => crypto.hash('sha256', data, encoding)
  : (data, encoding) => crypto.createHash('sha256').update(data).digest(encoding);

// --- inputs -------------------------------------------------------------------------------
// Every type and range of the inputs is checked before run() by inputs.js, against the
// spec's schema. The hashes are matched whole again, in the reference's order: the schema's
// pattern passes "<64 digits>\n" (its `$` is Python's, as the reference reads it).

function hexField(input, field, code) {
  const value = input[field];
  if (!HASH.test(value)) throw new InvalidInput(code, `${field} must be 64 lowercase hex digits`);
  return value;
}

// --- the chain ------------------------------------------------------------------------------

function previousHash(hashHex, rule) {
  // hex-text hashes the 64 ASCII characters, raw-bytes the 32 bytes they spell
  return rule === 'hex-text' ? sha256(hashHex, 'hex') : sha256(Buffer.from(hashHex, 'hex'), 'hex');
}

// Steps from gameHex to terminatingHex, at most maxSteps hashes computed; null if not reached.
function walkChain(gameHex, terminatingHex, maxSteps, rule) {
  if (rule === 'hex-text') {
    let text = gameHex;
    for (let steps = 0; ; steps++) {
      if (text === terminatingHex) return steps;
      if (steps === maxSteps) return null;
      text = sha256(text, 'hex');
    }
  }
  const target = words(terminatingHex);
  const value = words(gameHex);
  for (let steps = 0; ; steps++) {
    if (sameWords(value, target)) return steps;
    if (steps === maxSteps) return null;
    sha256Of32Bytes(value);
  }
}

// --- SHA-256 of 32 bytes, in place on eight 32-bit words --------------------------------------
// The raw-bytes walk hashes 32 bytes millions of times; through Buffers and crypto that
// costs over a microsecond a step (more than the runner's 10 s for the real game). 32 bytes
// fit one block whose padding is fixed (0x80, zeros, the length 256), so one compression
// per step on plain integers does it (FIPS 180-4, section 6.2).

const K = Int32Array.from([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const H0 = Int32Array.from([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);
const W = new Int32Array(64);

function words(hex) {
  return Int32Array.from({ length: 8 }, (_, at) => parseInt(hex.slice(at * 8, at * 8 + 8), 16));
}

function sameWords(left, right) {
  for (let at = 0; at < 8; at++) if (left[at] !== right[at]) return false;
  return true;
}

function sha256Of32Bytes(state) {
  W.set(state);
  W[8] = 0x80000000;
  W.fill(0, 9, 15);
  W[15] = 256;
  for (let t = 16; t < 64; t++) {
    const a = W[t - 15];
    const b = W[t - 2];
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    W[t] = (W[t - 16] + s0 + W[t - 7] + s1) | 0;
  }
  let a = H0[0];
  let b = H0[1];
  let c = H0[2];
  let d = H0[3];
  let e = H0[4];
  let f = H0[5];
  let g = H0[6];
  let h = H0[7];
  for (let t = 0; t < 64; t++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[t] + W[t]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] = (H0[0] + a) | 0;
  state[1] = (H0[1] + b) | 0;
  state[2] = (H0[2] + c) | 0;
  state[3] = (H0[3] + d) | 0;
  state[4] = (H0[4] + e) | 0;
  state[5] = (H0[5] + f) | 0;
  state[6] = (H0[6] + g) | 0;
  state[7] = (H0[7] + h) | 0;
}

// --- crash points ---------------------------------------------------------------------------

function hmacHex(key, message) {
  return crypto.createHmac('sha256', key).update(message).digest('hex');
}

function first52Bits(hmac) {
  return parseInt(hmac.slice(0, 13), 16);
}

function v2Outcome(hmac, reading) {
  const r = first52Bits(hmac);
  let x = r / E;
  if (reading === 'bcgame') x = parseFloat(x.toPrecision(9));
  const crash = Math.max(1, Math.floor(99 / (1 - x)) / 100);
  // 99 / 0 is Infinity; JSON has none, the spec writes it as text
  return { r, x, crash: crash === Infinity ? 'Infinity' : crash };
}

// The whole hash modulo `modulus`, 16 bits at a time (exact in 32-bit integers).
function divisible(hmac, modulus) {
  let rest = 0;
  for (let at = 0; at < hmac.length; at += 4) {
    rest = ((rest << 16) + parseInt(hmac.substring(at, at + 4), 16)) % modulus;
  }
  return rest === 0;
}

function v1Outcome(hmac, reading) {
  const r = first52Bits(hmac);
  if (divisible(hmac, V1_MODULUS[reading])) return { instant: true, r, crash: V1_INSTANT_CRASH[reading] };
  return { instant: false, r, crash: Math.floor((100 * E - r) / (E - r)) / 100 };
}

function v2Hmac(gameHash, salt) {
  // key: the salt's text; message: the game hash's 32 bytes
  return hmacHex(salt, Buffer.from(gameHash, 'hex'));
}

// --- the chain check by game number (bustabit.chain_position) --------------------------------
// The game number picks the chain as bustabit's verifier does: up to 10,000,000 the first
// chain (hex text; game 1 hashes to its terminating hash), above it the current chain (raw
// bytes; game 10,000,001 hashes to its terminating hash).

const FIRST_CHAIN_LENGTH = 10000000;
const CHAINS = {
  first: { rule: 'hex-text', terminating: '86728f5fc3bd99db94d3cdaf105d67788194e9701bf95d049ad0e1ee3d004277', origin: 0 },
  current: { rule: 'raw-bytes', terminating: '567a98370fb7545137ddb53687723cf0b8a1f5e93b1f76f4a1da29416930fa59', origin: FIRST_CHAIN_LENGTH },
};

// The hash exactly `steps` games below gameHex (no early stop).
function walkExactly(gameHex, steps, rule) {
  if (rule === 'hex-text') {
    let text = gameHex;
    for (let step = 0; step < steps; step++) text = sha256(text, 'hex');
    return text;
  }
  const value = words(gameHex);
  for (let step = 0; step < steps; step++) sha256Of32Bytes(value);
  return Array.from(value, (word) => (word >>> 0).toString(16).padStart(8, '0')).join('');
}

// --- the Vx era (bustabit.vx_*) ---------------------------------------------------------------
// BLS12-381 from @noble/curves 1.9.7, vendored unmodified under ../vendor (MIT; see
// vendor/PROVENANCE.md), an implementation independent of the reference's py_ecc. Loaded on
// first use: it costs some 75 ms, which no other algorithm should pay at start-up.

const VX_SALT = '000000000000000000011f6e135efe67d7463dfe7bb955663ef88b1243b2deea';
const VX_PUBLIC_KEY = 'b40c94495f6e6e73619aeb54ec2fc84c5333f7a88ace82923946fc5b6c8635b08f9130888dd96e1749a1d5aab00020e4';
const VX_PRIVATE_KEY = '1f0373e57723f4b862f2b9bd1279c9c6dcea73469fce6dcab9524b609c9c60f4';
const SIGNATURE = /^[0-9a-f]{192}$/;
let bls = null;

function bls12381() {
  // noble's default long signatures: G2, tag BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_NUL_
  if (bls === null) bls = require('../vendor/node_modules/@noble/curves/bls12-381.js').bls12_381;
  return bls;
}

function signatureField(input) {
  const value = input.signature;
  if (!SIGNATURE.test(value)) throw new InvalidInput('bad-signature', 'signature must be 192 lowercase hex digits (96 bytes, a G2 point)');
  return value;
}

// SHA-256 of the game hash's 32 bytes, then the Vx salt's 64 characters as text.
function vxMessage(gameHash) {
  return Buffer.concat([crypto.createHash('sha256').update(Buffer.from(gameHash, 'hex')).digest(), Buffer.from(VX_SALT, 'ascii')]);
}

function vxSign(message) {
  return Buffer.from(bls12381().sign(message, VX_PRIVATE_KEY)).toString('hex');
}

// The flag bits of a compressed point's first byte (ZCash format, as spec/bustabit/vx_verify.yaml's
// decision canonical-encoding states it).
const COMPRESSED = 0x80;
const INFINITY = 0x40;
const SORT = 0x20;
const COORDINATE_BITS = (1n << 381n) - 1n; // the bits under the three flags

// Whether the 96 bytes are the one encoding the serialization writes for some x. noble 1.9.7
// reduces each coordinate mod p (it decodes x.c0 + p as x.c0: issue 33), so the whole rule
// is checked here, before noble sees the bytes; its flag checks repeat noble's own, so the
// port's answer does not rest on one library version's leniency. That x is on the curve
// and the point in G2's subgroup is left to noble.
function isCanonicalG2(signatureHex) {
  const first = parseInt(signatureHex.slice(0, 2), 16);
  const c1 = BigInt('0x' + signatureHex.slice(0, 96)) & COORDINATE_BITS;
  const c0 = BigInt('0x' + signatureHex.slice(96));
  if ((first & COMPRESSED) === 0) return false;
  if (first & INFINITY) return (first & SORT) === 0 && c1 === 0n && c0 === 0n;
  const p = bls12381().fields.Fp.ORDER;
  return c1 < p && c0 < p;
}

// Any 96 bytes have an answer: a value that is no canonical encoding, or that noble cannot
// decode to a point of G2's subgroup (it throws), is a signature that is not valid.
function vxVerify(message, signatureHex) {
  if (!isCanonicalG2(signatureHex)) return false;
  try {
    return bls12381().verify(signatureHex, message, VX_PUBLIC_KEY) === true;
  } catch (error) {
    return false;
  }
}

function vxCrash(gameHash, signatureHex) {
  // key: the signature's 96 bytes; message: the game hash's 32 bytes
  const hmac = hmacHex(Buffer.from(signatureHex, 'hex'), Buffer.from(gameHash, 'hex'));
  return { hmac, ...v2Outcome(hmac, 'bustabit') };
}

module.exports = {
  'bustabit.previous_hash': {
    variants: CHAIN_RULES,
    run: (input, rule) => ({ previous_hash: previousHash(hexField(input, 'game_hash', 'bad-hash'), rule) }),
  },
  'bustabit.chain_check': {
    variants: CHAIN_RULES,
    run: (input, rule) => {
      const gameHash = hexField(input, 'game_hash', 'bad-hash');
      const terminatingHash = hexField(input, 'terminating_hash', 'bad-hash');
      const steps = walkChain(gameHash, terminatingHash, input.max_steps, rule);
      if (steps === null) return { reached: false, steps: null, game_number: null };
      return { reached: true, steps, game_number: input.terminating_game + steps };
    },
  },
  'bustabit.crash_v2_outcome': {
    variants: V2_READINGS,
    run: (input, reading) => v2Outcome(hexField(input, 'hmac', 'bad-hmac'), reading),
  },
  'bustabit.crash_v2': {
    variants: V2_READINGS,
    run: (input, reading) => {
      const gameHash = hexField(input, 'game_hash', 'bad-hash');
      const hmac = v2Hmac(gameHash, hexField(input, 'salt', 'bad-salt'));
      return { hmac, ...v2Outcome(hmac, reading) };
    },
  },
  'bustabit.crash_v1_outcome': {
    variants: V1_READINGS,
    run: (input, reading) => v1Outcome(hexField(input, 'hmac', 'bad-hmac'), reading),
  },
  'bustabit.crash_v1': {
    variants: V1_READINGS,
    run: (input, reading) => {
      const gameHash = hexField(input, 'game_hash', 'bad-hash');
      // key: the game hash's text; message: the salt's text
      const hmac = hmacHex(gameHash, hexField(input, 'salt', 'bad-salt'));
      return { hmac, ...v1Outcome(hmac, reading) };
    },
  },
  'bustabit.chain_position': {
    run: (input) => {
      const gameHash = hexField(input, 'game_hash', 'bad-hash');
      const number = input.game_number;
      const chain = number <= FIRST_CHAIN_LENGTH ? 'first' : 'current';
      const { rule, terminating, origin } = CHAINS[chain];
      const steps = number - origin;
      const end = walkExactly(gameHash, steps, rule);
      return { chain, steps, end_hash: end, genuine: end === terminating };
    },
  },
  'bustabit.vx_signature': {
    run: (input) => {
      const message = vxMessage(hexField(input, 'game_hash', 'bad-hash'));
      return { message: message.toString('hex'), signature: vxSign(message) };
    },
  },
  'bustabit.vx_crash': {
    run: (input) => {
      const gameHash = hexField(input, 'game_hash', 'bad-hash');
      return vxCrash(gameHash, signatureField(input));
    },
  },
  'bustabit.vx_verify': {
    run: (input) => {
      const message = vxMessage(hexField(input, 'game_hash', 'bad-hash'));
      return { valid: vxVerify(message, signatureField(input)) };
    },
  },
  'bustabit.vx_game': {
    run: (input) => {
      const gameHash = hexField(input, 'game_hash', 'bad-hash');
      const signature = vxSign(vxMessage(gameHash));
      return { signature, ...vxCrash(gameHash, signature) };
    },
  },
  'bustabit.games': {
    variants: CHAIN_RULES,
    run: (input, rule) => {
      let gameHash = hexField(input, 'game_hash', 'bad-hash');
      const salt = hexField(input, 'salt', 'bad-salt');
      const count = input.count;
      const hashes = [];
      const crashes = [];
      for (let game = 0; game < count; game++) {
        hashes.push(gameHash);
        crashes.push(v2Outcome(v2Hmac(gameHash, salt), 'bustabit').crash);
        gameHash = previousHash(gameHash, rule);
      }
      return { hashes, crashes };
    },
  },
};
