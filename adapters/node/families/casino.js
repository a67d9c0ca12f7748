'use strict';
// The casino generator, ported from the document's own JavaScript
// (shared/seeds/000_162a66a6a1bf86ea.txt, section "Реализация": "Генерация случайных чисел",
// "Перевод байтов в числа", "Генерация результата Mines" ... "Генерация результата x50").
//
// The functions below keep the document's names and bodies; what the document leaves out
// (createHash / createHmac, `result`, `max`) is filled in with Node's crypto and Math.
// Every type, range and count of the inputs (and lone surrogates in the seeds) is checked
// before run() by inputs.js, against the spec's schema (spec/casino/*.yaml).

const crypto = require('crypto');
const { InvalidInput } = require('../lib');

const KEY_READINGS = ['hex-text', 'raw-bytes'];
const TOWER_ROUND_VARIANTS = ['hex-text', 'raw-bytes', 'hex-text-literal', 'raw-bytes-literal'];
// Matched whole again: the schema's pattern passes "<128 digits>\n" (its `$` is Python's,
// as the reference reads it), the reference's own check does not.
const BYTES_HEX = /^[0-9a-fA-F]{128}$/;

// --- helpers (not in the document) ---------------------------------------------------

// The double's IEEE 754 bits, big-endian, as 16 lower-case hex digits. One shared buffer
// and Buffer's own hex encoder: formatting byte by byte (toString, padStart, join) took
// about 2 µs a number, most of a casino.mines answer's time (24 numbers a round).
const BITS = Buffer.alloc(8);

function bits(value) {
  BITS.writeDoubleBE(value, 0);
  return BITS.toString('hex');
}

function hexToBytes(value, field) {
  if (!BYTES_HEX.test(value)) throw new InvalidInput('bad-bytes', `${field}: 128 hex digits`);
  return Array.from(Buffer.from(value, 'hex'));
}

// --- "Генерация случайных чисел" -------------------------------------------------------

// The last key computed: a round's cursors all hash the same `server_seed:salt` (three
// times a casino.mines round). Its users only read it (a Buffer is copied before change).
let lastKey = { input: null, keyReading: null, key: null };

// createHash: SHA-256 of the text. The document does not say whether HMAC gets the digest
// as hex text (what its two online calculators do) or as raw bytes: both are variants.
function createHash(input, keyReading) {
  if (input === lastKey.input && keyReading === lastKey.keyReading) return lastKey.key;
  const hash = crypto.createHash('sha256').update(input, 'utf8');
  const key = keyReading === 'raw-bytes' ? hash.digest() : hash.digest('hex');
  lastKey = { input, keyReading, key };
  return key;
}

// The digest's Buffer itself: it indexes as the byte array the document's code reads, and
// copying it into an Array cost a few µs a cursor.
function createHmac(key, message) {
  return crypto.createHmac('sha512', key).update(message, 'utf8').digest();
}

function seedsToBytes(serverSeed, clientSeed, salt, cursor, keyReading) {
  // SHA-256 calculation
  const hmacKey = createHash(serverSeed + ':' + salt, keyReading);
  const hmacMessage = clientSeed + ':' + cursor;
  // HMAC calculation
  return createHmac(hmacKey, hmacMessage);
}

// --- "Перевод байтов в числа" ------------------------------------------------------------

function numbersFromBytes(bytes) {
  const result = []; // the document's code uses `result` without declaring it
  for (let t = 0; t < 8; t++) {
    let value = 0;
    let pw = 256;
    for (let i = t * 8; i < t * 8 + 8; i++) {
      value += bytes[i] / pw;
      pw *= 256;
    }
    result.push(value);
  }
  return result;
}

// The index array: cursors first, first + 1, ... concatenated ("объединяются в один массив").
function indexArray({ server_seed, salt, client_seed }, first, count, keyReading) {
  let numbers = [];
  for (let cursor = first; cursor < first + count; cursor++) {
    numbers = numbers.concat(numbersFromBytes(seedsToBytes(server_seed, client_seed, salt, cursor, keyReading)));
  }
  return numbers;
}

// --- "Генерация результата Mines" --------------------------------------------------------

// numbers - index array (the document's body; given a `trace`, its `indices` and
// `remaining` record each step as the worked-example table prints them: casino.mines
// asks for none, and copying the range at every step was a tenth of its time)
function minesShuffling(numbers, minesCount, trace = null) {
  // Initial array
  let range = [];
  // Resulting array
  let permutation = [];
  for (var i = 0; i <= 24; i++) range.push(i);
  for (var i = 0; i < numbers.length; i++) {
    let index = Math.floor(numbers[i] * range.length);
    if (trace) {
      trace.indices.push(index);
      trace.remaining.push(range.slice());
    }
    permutation.push(range.splice(index, 1)[0]);
  }
  return permutation;
}

// --- "Генерация результата Tower" (printed under the name minesShuffling) ----------------

// `literal` is the printed body: splice(numbers[i * 4 + j], 1). `scaled` multiplies by
// range.length first, as minesShuffling does and as the text's "Fisher-Yates" requires.
function towerShuffling(numbers, literal) {
  let field = [];
  for (var i = 0; i < 10; i++) {
    // Initial array
    let range = [];
    // Resulting array
    let permutation = [];
    for (var j = 0; j <= 4; j++) range.push(j);
    for (var j = 0; j < 4; j++) {
      const at = literal ? numbers[i * 4 + j] : Math.floor(numbers[i * 4 + j] * range.length);
      permutation.push(range.splice(at, 1)[0]);
    }
    field.push(permutation);
  }
  return field;
}

// --- "Генерация результата Slot", "Plinko", "Dice", "Double", "Jackpot", "Crash", "Overgo", "x50"

function slotSpin(numbers) {
  let spin_positions = [];
  for (var i = 0; i < 5; i++) {
    spin_positions.push(Math.floor(numbers[i] * (i == 4 ? 41 : 30)));
  }
  return spin_positions;
}

function plinkoBucket(numbers) {
  return numbers.map((number) => Math.floor(number * 2)).reduce((acc, item) => acc + item, 0);
}

function diceOutcome(number) {
  return Math.floor(number * 10001) / 100;
}

function doubleOutcome(number) {
  return Math.floor(number * 15);
}

// printed under the name doubleOutcome as well
function x50Outcome(number) {
  return Math.floor(number * 54);
}

function jackpotOutcome(number, ticketsCount) {
  return Math.floor(number * ticketsCount) + 1;
}

const max = Math.max; // the document calls a bare `max`

function crashOutcome(number) {
  return max(1, 1000000 / (Math.floor(number * 1000000) + 1) * (1 - 0.05)).toFixed(2);
}

function overgoOutcome(number) {
  return max(1, 1000000 / (Math.floor(number * 1000000) + 1) * (1 - 0.03)).toFixed(2);
}

// --- outputs as the spec names them --------------------------------------------------------

function diceOutput(number) {
  const result = diceOutcome(number);
  return { roll: Math.floor(number * 10001), result, result_bits: bits(result), text: result.toFixed(2) };
}

function multiplierOutput(number, edge, outcome) {
  const value = max(1, 1000000 / (Math.floor(number * 1000000) + 1) * (1 - edge));
  return { scaled: Math.floor(number * 1000000), value, value_bits: bits(value), multiplier: outcome(number) };
}

const withBits = (numbers) => ({ numbers, numbers_bits: numbers.map(bits) });
const keyOf = (variant) => (variant.startsWith('raw-bytes') ? 'raw-bytes' : 'hex-text');

function single(input, variant, output) {
  const number = indexArray(input, 0, 1, keyOf(variant))[0];
  return { number, number_bits: bits(number), ...output(number) };
}

const oneNumber = (run) => ({ run: (input) => run(input.number, input) });

module.exports = {
  'casino.hmac_key': {
    variants: KEY_READINGS,
    run: ({ server_seed, salt }, variant) => {
      const input = server_seed + ':' + salt;
      const digest = createHash(input, 'raw-bytes').toString('hex');
      const key = createHash(input, variant);
      return { digest, key: Buffer.from(key).toString('hex') };
    },
  },
  'casino.bytes': {
    variants: KEY_READINGS,
    run: ({ server_seed, salt, client_seed, cursor }, variant) => {
      const bytes = seedsToBytes(server_seed, client_seed, salt, cursor, variant);
      return { message: client_seed + ':' + cursor, bytes: Buffer.from(bytes).toString('hex') };
    },
  },
  'casino.numbers': { run: ({ bytes }) => withBits(numbersFromBytes(hexToBytes(bytes, 'bytes'))) },
  'casino.round_numbers': {
    variants: KEY_READINGS,
    run: (input, variant) => {
      return withBits(indexArray(input, 0, input.cursors, variant));
    },
  },
  'casino.commitment': {
    variants: KEY_READINGS,
    run: ({ server_seed, salt, client_seed, bytes }, variant) => {
      const shown = bytes.map((value, cursor) => hexToBytes(value, `bytes[${cursor}]`));
      const computed = shown.map((_, cursor) =>
        Buffer.from(seedsToBytes(server_seed, client_seed, salt, cursor, variant)).toString('hex'));
      const matches = computed.every((value, cursor) => value === Buffer.from(shown[cursor]).toString('hex'));
      return { bytes: computed, matches };
    },
  },
  'casino.mines_shuffling': {
    run: ({ numbers, mines_count }) => {
      const trace = { indices: [], remaining: [] };
      const permutation = minesShuffling(numbers, mines_count, trace);
      const { indices, remaining } = trace;
      // JSON.stringify writes an `undefined` array element as null
      const out = permutation.map((cell) => (cell === undefined ? null : cell));
      return { indices, remaining, permutation: out, mines: out.slice(0, mines_count) };
    },
  },
  'casino.tower_shuffling': {
    variants: ['scaled', 'literal'],
    run: ({ numbers }, variant) => {
      return { field: JSON.parse(JSON.stringify(towerShuffling(numbers, variant === 'literal'))) };
    },
  },
  'casino.slot_spin': {
    run: ({ numbers }) => {
      return { positions: slotSpin(numbers) };
    },
  },
  'casino.plinko_bucket': {
    run: ({ numbers }) => {
      return { directions: numbers.map((n) => Math.floor(n * 2)), bucket: plinkoBucket(numbers) };
    },
  },
  'casino.dice_outcome': oneNumber((number) => diceOutput(number)),
  'casino.double_outcome': oneNumber((number) => ({ sector: doubleOutcome(number) })),
  'casino.x50_outcome': oneNumber((number) => ({ sector: x50Outcome(number) })),
  'casino.jackpot_outcome': oneNumber((number, input) => ({ ticket: jackpotOutcome(number, input.tickets) })),
  'casino.crash_outcome': oneNumber((number) => multiplierOutput(number, 0.05, crashOutcome)),
  'casino.overgo_outcome': oneNumber((number) => multiplierOutput(number, 0.03, overgoOutcome)),
  'casino.mines': {
    variants: KEY_READINGS,
    run: (input, variant) => {
      const numbers = indexArray(input, 0, 3, variant);
      const permutation = minesShuffling(numbers, input.mines_count);
      const out = permutation.map((cell) => (cell === undefined ? null : cell));
      return { ...withBits(numbers), permutation: out, mines: out.slice(0, input.mines_count) };
    },
  },
  'casino.tower': {
    variants: TOWER_ROUND_VARIANTS,
    run: (input, variant) => {
      const numbers = indexArray(input, 0, 5, keyOf(variant));
      const field = towerShuffling(numbers, variant.endsWith('-literal'));
      return { ...withBits(numbers), field: JSON.parse(JSON.stringify(field)) };
    },
  },
  'casino.slot': {
    variants: KEY_READINGS,
    run: (input, variant) => {
      const spins = [];
      // spin s uses cursor s: one cursor per spin ("Slot (от 1 до 180 курсоров)")
      for (let spin = 0; spin < input.spins; spin++) spins.push(slotSpin(indexArray(input, spin, 1, variant)));
      return { spins };
    },
  },
  'casino.plinko': {
    variants: KEY_READINGS,
    run: (input, variant) => {
      const buckets = [];
      // ball b uses cursors 2b and 2b + 1 ("Plinko (от 2 до 200 курсоров)")
      for (let ball = 0; ball < input.balls; ball++) {
        buckets.push(plinkoBucket(indexArray(input, 2 * ball, 2, variant).slice(0, input.pins)));
      }
      return { buckets };
    },
  },
  'casino.dice': { variants: KEY_READINGS, run: (input, variant) => single(input, variant, diceOutput) },
  'casino.double': {
    variants: KEY_READINGS,
    run: (input, variant) => single(input, variant, (n) => ({ sector: doubleOutcome(n) })),
  },
  'casino.x50': {
    variants: KEY_READINGS,
    run: (input, variant) => single(input, variant, (n) => ({ sector: x50Outcome(n) })),
  },
  'casino.jackpot': {
    variants: KEY_READINGS,
    run: (input, variant) => {
      return single(input, variant, (n) => ({ ticket: jackpotOutcome(n, input.tickets) }));
    },
  },
  'casino.crash': {
    variants: KEY_READINGS,
    run: (input, variant) => single(input, variant, (n) => multiplierOutput(n, 0.05, crashOutcome)),
  },
  'casino.overgo': {
    variants: KEY_READINGS,
    run: (input, variant) => single(input, variant, (n) => multiplierOutput(n, 0.03, overgoOutcome)),
  },
};
