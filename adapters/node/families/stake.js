'use strict';
// The Stake-style scheme (spec/stake/*.yaml), ported from the specs: HMAC-SHA256 bytes for
// client_seed:nonce:round, floats from 4 bytes each, the pick-and-remove shuffle, and the
// games. Written from the published formulas, not from any verifier's code.

const crypto = require('crypto');
const { InvalidInput } = require('../lib');

const SHUFFLES = ['pick-and-remove', 'swap-from-end'];
const ROUNDINGS = ['truncate', 'round'];
const RANKS = ['2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K', 'A'];
const SUITS = ['♦', '♥', '♠', '♣'];
const GEMS = ['green', 'purple', 'yellow', 'red', 'cyan', 'orange', 'blue'];
// The schema's pattern passes "<64 digits>\n" (its `$` is Python's, as the reference reads
// it), so the whole hash is matched again here, as the reference does.
const GAME_HASH = /^[0-9a-f]{64}$/;

// Wheel payouts (spec/stake/wheel.yaml, step wheel_payouts).
const LOW_BLOCK = [1.5, 1.2, 1.2, 1.2, 0, 1.2, 1.2, 1.2, 1.2, 0];
const MEDIUM = {
  10: [0, 1.9, 0, 1.5, 0, 2, 0, 1.5, 0, 3],
  20: [1.5, 0, 2, 0, 2, 0, 2, 0, 1.5, 0, 3, 0, 1.8, 0, 2, 0, 2, 0, 2, 0],
  30: [1.5, 0, 1.5, 0, 2, 0, 1.5, 0, 2, 0, 2, 0, 1.5, 0, 3, 0, 1.5, 0, 2, 0,
    2, 0, 1.7, 0, 4, 0, 1.5, 0, 2, 0],
  40: [2, 0, 3, 0, 2, 0, 1.5, 0, 3, 0, 1.5, 0, 1.5, 0, 2, 0, 1.5, 0, 3, 0,
    1.5, 0, 2, 0, 2, 0, 1.6, 0, 2, 0, 1.5, 0, 3, 0, 1.5, 0, 2, 0, 1.5, 0],
  50: [2, 0, 1.5, 0, 2, 0, 1.5, 0, 3, 0, 1.5, 0, 1.5, 0, 2, 0, 1.5, 0, 3, 0,
    1.5, 0, 2, 0, 1.5, 0, 2, 0, 2, 0, 1.5, 0, 3, 0, 1.5, 0, 2, 0, 1.5, 0,
    1.5, 0, 5, 0, 1.5, 0, 2, 0, 1.5, 0],
};
const HIGH_TOP = { 10: 9.9, 20: 19.8, 30: 29.7, 40: 39.6, 50: 49.5 };

function payouts(segments, risk) {
  if (risk === 'low') return Array.from({ length: segments }, (_, i) => LOW_BLOCK[i % 10]);
  if (risk === 'medium') return MEDIUM[segments];
  return Array.from({ length: segments }, (_, i) => (i === segments - 1 ? HIGH_TOP[segments] : 0));
}

// Every type, range, pattern and enum of the inputs is checked before run() by inputs.js,
// against the spec's schema; only the checks a schema cannot say are left here.

// --- stages ----------------------------------------------------------------------------------

function roundBytes(serverSeed, clientSeed, nonce, round) {
  const message = `${clientSeed}:${nonce}:${round}`;
  return crypto.createHmac('sha256', Buffer.from(serverSeed, 'utf8')).update(message, 'utf8').digest();
}

// byteGenerator: round floor(cursor / 32) from byte cursor % 32, then the following rounds.
function* byteGenerator(serverSeed, clientSeed, nonce, cursor) {
  let round = Math.floor(cursor / 32);
  let offset = cursor - round * 32;
  for (;;) {
    const buffer = roundBytes(serverSeed, clientSeed, nonce, round);
    for (; offset < 32; offset++) yield buffer[offset];
    offset = 0;
    round += 1;
  }
}

function generateFloats(serverSeed, clientSeed, nonce, cursor, count) {
  const bytes = byteGenerator(serverSeed, clientSeed, nonce, cursor);
  const floats = [];
  for (let i = 0; i < count; i++) {
    let value = 0;
    for (let j = 0; j < 4; j++) value += bytes.next().value / 256 ** (j + 1);
    floats.push(value);
  }
  return floats;
}

const gameFloats = (input, count) =>
  generateFloats(input.server_seed, input.client_seed, input.nonce, 0, count);

function pickAndRemove(floats, size) {
  const items = Array.from({ length: size }, (_, i) => i);
  const indices = [];
  const picks = [];
  for (const f of floats) {
    const index = Math.floor(f * items.length);
    indices.push(index);
    picks.push(items.splice(index, 1)[0]);
  }
  return { indices, picks };
}

function swapFromEnd(floats, size) {
  const items = Array.from({ length: size }, (_, i) => i);
  const indices = [];
  const picks = [];
  floats.forEach((f, step) => {
    const left = size - step;
    const index = Math.floor(f * left);
    indices.push(index);
    picks.push(items[index]);
    items[index] = items[left - 1];
  });
  return { indices, picks };
}

const shuffle = (floats, size, variant) =>
  (variant === 'swap-from-end' ? swapFromEnd : pickAndRemove)(floats, size);

const cardName = (index) => RANKS[Math.floor(index / 4)] + SUITS[index % 4];

// --- two decimals ------------------------------------------------------------------------------

function cents(value, variant) {
  // truncate: value is already floored to the hundredth; round: toFixed(2) of the raw value
  const textValue = value.toFixed(2);
  return variant === 'round' ? { result: Number(textValue), text: textValue } : { result: value, text: textValue };
}

function diceRoll(f, variant) {
  if (variant === 'round') return cents((f * 10001) / 100, variant);
  return cents(Math.floor(f * 10001) / 100, variant);
}

function limbo(f, variant) {
  const scaled = Math.floor(f * 16777216);
  const raw = 16777216 / (scaled + 1) * 0.99;
  const out = variant === 'round' ? cents(Math.max(1, raw), variant) : cents(Math.max(1, Math.floor(raw * 100) / 100), variant);
  return { scaled, ...out };
}

function crash(gameHash, salt, variant) {
  if (!GAME_HASH.test(gameHash)) throw new InvalidInput('bad-game-hash', 'game_hash is 64 lowercase hexadecimal digits');
  const hmac = crypto.createHmac('sha256', Buffer.from(gameHash, 'ascii')).update(salt, 'utf8').digest('hex');
  const number = parseInt(hmac.slice(0, 8), 16);
  const raw = Math.max(1, 2 ** 32 / (number + 1) * 0.99);
  const out = variant === 'round' ? cents(raw, variant) : cents(Math.floor(raw * 100) / 100, variant);
  return { hmac, number, crash_point: out.result, text: out.text };
}

// The schema admits [0, 1]; a float of 4 bytes lies in [0, 1), so 1.0 is refused here.
function checkFloats(floats) {
  floats.forEach((f, i) => {
    if (!(f >= 0 && f < 1)) throw new InvalidInput('float-out-of-range', `floats[${i}] must lie in [0, 1)`);
  });
}

function shuffledGame(input, count, size, variant) {
  const floats = gameFloats(input, count);
  return { floats, picks: shuffle(floats, size, variant).picks };
}

const numeric = (a, b) => a - b;

module.exports = {
  'stake.bytes': {
    run: ({ server_seed, client_seed, nonce, round }) => {
      const bytes = roundBytes(server_seed, client_seed, nonce, round);
      return { message: `${client_seed}:${nonce}:${round}`, bytes: bytes.toString('hex') };
    },
  },
  'stake.floats': {
    run: ({ server_seed, client_seed, nonce, cursor, count }) => ({
      floats: generateFloats(server_seed, client_seed, nonce, cursor, count),
    }),
  },
  'stake.shuffle': {
    variants: SHUFFLES,
    run: ({ floats, size }, variant) => {
      // the reference's order: the count against size first, then each float
      if (floats.length > size) throw new InvalidInput('too-many-floats', `${floats.length} floats, ${size} items`);
      checkFloats(floats);
      return shuffle(floats, size, variant);
    },
  },
  'stake.dice': {
    variants: ROUNDINGS,
    run: (input, variant) => {
      const [f] = gameFloats(input, 1);
      return { float: f, ...diceRoll(f, variant) };
    },
  },
  'stake.limbo': {
    variants: ROUNDINGS,
    run: (input, variant) => {
      const [f] = gameFloats(input, 1);
      const { scaled, result, text: shown } = limbo(f, variant);
      return { float: f, scaled, multiplier: result, text: shown };
    },
  },
  'stake.crash': {
    variants: ROUNDINGS,
    run: ({ game_hash, salt }, variant) => crash(game_hash, salt, variant),
  },
  'stake.mines': {
    variants: SHUFFLES,
    run: (input, variant) => {
      const { floats, picks } = shuffledGame(input, input.mines_count, 25, variant);
      return { floats, mines: picks, cells: [...picks].sort(numeric) };
    },
  },
  'stake.keno': {
    variants: SHUFFLES,
    run: (input, variant) => {
      const { floats, picks } = shuffledGame(input, 10, 40, variant);
      const hits = picks.map((pick) => pick + 1); // squares 1 to 40
      return { floats, hits, squares: [...hits].sort(numeric) };
    },
  },
  'stake.video_poker': {
    variants: SHUFFLES,
    run: (input, variant) => {
      const { floats, picks } = shuffledGame(input, 10, 52, variant);
      const cards = picks.map(cardName);
      return { floats, indices: picks, cards, hand: cards.slice(0, 5), draws: cards.slice(5) };
    },
  },
  'stake.plinko': {
    run: (input) => {
      const floats = gameFloats(input, input.rows);
      const directions = floats.map((f) => Math.floor(f * 2));
      return { floats, directions, slot: directions.reduce((a, b) => a + b, 0) };
    },
  },
  'stake.wheel': {
    run: (input) => {
      const [f] = gameFloats(input, 1);
      const segment = Math.floor(f * input.segments);
      return { float: f, segment, multiplier: payouts(input.segments, input.risk)[segment] };
    },
  },
  'stake.roulette': {
    run: (input) => {
      const [f] = gameFloats(input, 1);
      return { float: f, pocket: Math.floor(f * 37) };
    },
  },
  'stake.diamonds': {
    run: (input) => {
      const floats = gameFloats(input, 5);
      return { floats, gems: floats.map((f) => GEMS[Math.floor(f * 7)]) };
    },
  },
  'stake.cards': {
    run: (input) => {
      const floats = gameFloats(input, input.count);
      const indices = floats.map((f) => Math.floor(f * 52));
      return { floats, indices, cards: indices.map(cardName) };
    },
  },
};
