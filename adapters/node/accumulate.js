#!/usr/bin/env node
'use strict';
// Computes an accumulated vector's digest with this adapter's own code and nothing of
// fairvec: the input stream, the field generators and the record encoding are
// re-implemented here from docs/accumulated.md alone, to show a port author can do it.
//
//   node accumulate.js VECTOR_FILE ACCUMULATED_ID [COUNT]
//
// prints one line of JSON: {"id", "count", "digest", "checkpoints"}. The stream's
// definition (seed and field generators) is read from the vector file, which repeats
// the spec's; COUNT (default: the vector's count) stops early, for a quick check.

const crypto = require('crypto');
const fs = require('fs');
const { InvalidInput, loadAlgorithms } = require('./lib');
const { schemaFor, checkInput } = require('./inputs');

// -- the input stream: SHA-256 in counter mode (docs/spec-format.md, Generated sets) -----

class Stream {
  constructor(seed) {
    this.seed = Buffer.from(seed, 'utf8');
    this.counter = 0;
    this.buffer = Buffer.alloc(0);
  }

  take(count) {
    const blocks = [this.buffer];
    let have = this.buffer.length;
    while (have < count) {
      const block = crypto.createHash('sha256')
        .update(Buffer.concat([this.seed, Buffer.from(`:${this.counter}`, 'utf8')]))
        .digest();
      blocks.push(block);
      have += block.length;
      this.counter += 1;
    }
    const all = Buffer.concat(blocks);
    this.buffer = all.subarray(count);
    return all.subarray(0, count);
  }

  // uniform in [0, bound) by rejection over 64-bit big-endian draws: no modulo bias
  below(bound) {
    const big = BigInt(bound);
    const limit = (1n << 64n) - ((1n << 64n) % big);
    for (;;) {
      const value = this.take(8).readBigUInt64BE(0);
      if (value < limit) return Number(value % big);
    }
  }

  between(low, high) {
    return low + this.below(high - low + 1);
  }
}

// -- the field generators --------------------------------------------------------------

const SURROGATES = 0xe000 - 0xd800;
const UNICODE_SCALARS = 0x110000 - SURROGATES;

function character(stream, alphabet) {
  if (alphabet !== 'unicode') {
    const letters = Array.from(alphabet);
    return letters[stream.below(letters.length)];
  }
  const code = stream.below(UNICODE_SCALARS);
  return String.fromCodePoint(code >= 0xd800 ? code + SURROGATES : code);
}

const GENERATORS = {
  const: (_stream, value) => value,
  int: (stream, [low, high]) => stream.between(low, high),
  hex: (stream, digits) => stream.take(Math.ceil(digits / 2)).toString('hex').slice(0, digits),
  base64: (stream, count) => stream.take(count).toString('base64'),
  choice: (stream, options) => options[stream.below(options.length)],
  text(stream, shape) {
    const length = stream.between(shape.min, shape.max);
    let text = '';
    for (let i = 0; i < length; i += 1) text += character(stream, shape.alphabet || 'unicode');
    return text;
  },
  list(stream, shape) {
    const length = stream.between(shape.min, shape.max);
    return Array.from({ length }, () => draw(stream, shape.of));
  },
  sample(stream, shape) {
    const size = stream.between(shape.min, Math.min(shape.max, shape.from.length));
    const chosen = new Set();
    while (chosen.size < size) chosen.add(stream.below(shape.from.length));
    return [...chosen].sort((a, b) => a - b).map((index) => shape.from[index]);
  },
  uuid(stream) {
    const raw = Buffer.from(stream.take(16));
    raw[6] = (raw[6] & 0x0f) | 0x40;
    raw[8] = (raw[8] & 0x3f) | 0x80;
    const hex = raw.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  },
  concat: (stream, parts) => parts.map((part) => draw(stream, part)).join(''),
  permutation(stream, size) {
    const items = Array.from({ length: size }, (_, i) => i);
    for (let i = size - 1; i > 0; i -= 1) {
      const j = stream.below(i + 1);
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  },
  double(stream, [low, high]) {
    const step = Number(stream.take(8).readBigUInt64BE(0) >> 11n) / 2 ** 53;
    return low + (high - low) * step;
  },
  percent(stream, generator) {
    const raw = Buffer.from(draw(stream, generator), 'utf8');
    const cases = stream.take(raw.length);
    let text = '';
    raw.forEach((byte, i) => {
      const high = (byte >> 4).toString(16).toUpperCase();
      const low = (byte & 15).toString(16).toUpperCase();
      text += `%${cases[i] & 1 ? high.toLowerCase() : high}${cases[i] & 2 ? low.toLowerCase() : low}`;
    });
    return text;
  },
};

function draw(stream, generator) {
  const [[kind, argument]] = Object.entries(generator);
  return GENERATORS[kind](stream, argument);
}

function drawInputs(stream, fields) {
  const input = {};
  for (const [name, generator] of Object.entries(fields)) input[name] = draw(stream, generator);
  return input;
}

// -- the record: RFC 8785 canonical JSON, then a newline -------------------------------

// JSON.stringify already writes numbers and strings as RFC 8785 does; only the keys need
// sorting, and JavaScript's default sort compares UTF-16 code units, as RFC 8785 says.
function sortedKeys(value) {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  const sorted = {};
  for (const key of Object.keys(value).sort()) sorted[key] = sortedKeys(value[key]);
  return sorted;
}

function record(answer) {
  return `${JSON.stringify(sortedKeys(answer))}\n`;
}

// -- the answers, from the adapter's own family files ------------------------------------

// As the adapter answers a request: the input checked against the spec's schema first (a
// stream may draw invalid inputs: stake.shuffle's does), then the algorithm.
function answer(entry, schema, input, variant) {
  try {
    checkInput(schema, input);
    return { output: entry.run(input, variant || (entry.variants || [])[0]) };
  } catch (error) {
    if (error instanceof InvalidInput) return { error: error.code };
    throw error;
  }
}

// The digest and the checkpoints of ``count`` cases of a stream (docs/accumulated.md):
// ``answerOf(input)`` is a case's answer ({output} or {error: code}); ``onCheckpoint(k,
// digest)`` is called as each block ends (the adapter reports progress with it).
function accumulate(stream, count, block, answerOf, onCheckpoint = () => {}) {
  const source = new Stream(stream.seed);
  const hash = crypto.createHash('sha256');
  const checkpoints = [];
  for (let i = 1; i <= count; i += 1) {
    hash.update(record(answerOf(drawInputs(source, stream.input))), 'utf8');
    if (i % block === 0 || i === count) {
      checkpoints.push(hash.copy().digest('hex'));
      onCheckpoint(checkpoints.length, checkpoints[checkpoints.length - 1]);
    }
  }
  return { digest: checkpoints[checkpoints.length - 1], checkpoints };
}

function main([file, id, countText]) {
  if (!file || !id) {
    process.stderr.write('usage: node accumulate.js VECTOR_FILE ACCUMULATED_ID [COUNT]\n');
    process.exit(2);
  }
  const vectorFile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const vector = (vectorFile.accumulated || []).find((entry) => entry.id === id);
  if (!vector) {
    process.stderr.write(`${file}: no accumulated vector ${id}\n`);
    process.exit(2);
  }
  const entry = loadAlgorithms()[vectorFile.algorithm];
  const schema = schemaFor(vectorFile.algorithm);
  const count = countText ? Number(countText) : vector.count;
  const { digest, checkpoints } = accumulate(
    vector.stream, count, vector.block, (input) => answer(entry, schema, input, vector.variant),
  );
  process.stdout.write(`${JSON.stringify({ id, count, digest, checkpoints })}\n`);
}

module.exports = { accumulate, drawInputs, record, Stream };

if (require.main === module) main(process.argv.slice(2));
