#!/usr/bin/env node
'use strict';
// The fairvec Node.js adapter: plain Node 20, no npm dependencies.
// Protocol (docs/adapter-protocol.md): print one hello line, then answer each request
// line on stdin with one response line on stdout, in order.
//
// Each file in families/ exports { "<algorithm id>": { variants?: [...], run(input, variant) } }.

const path = require('path');
const readline = require('readline');
const { InvalidInput, loadAlgorithms } = require('./lib');
const { schemaFor, checkInput, SetupError } = require('./inputs');
const { accumulate } = require('./accumulate');
const { fractionWritten } = require('./literals');

const ENCODING = 'fairvec-accumulated/1';

// A line the protocol does not allow (not JSON, not an object, no id, algorithm or input)
// is answered with the protocol's bad-request error: it never ends the adapter.
function badRequest(id, message) {
  return { id: typeof id === 'string' ? id : null, error: { code: 'bad-request', message } };
}

function checkRequest(line) {
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    return { problem: badRequest(null, 'the line is not JSON') };
  }
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    return { problem: badRequest(null, 'the request is not a JSON object') };
  }
  if (typeof request.id !== 'string') return { problem: badRequest(null, 'the request has no id (a string)') };
  if (typeof request.algorithm !== 'string') {
    return { problem: badRequest(request.id, 'the request has no algorithm (a string)') };
  }
  if (!('input' in request) && !('accumulate' in request)) {
    return { problem: badRequest(request.id, 'the request has no input') };
  }
  if (request.variant != null && typeof request.variant !== 'string') {
    return { problem: badRequest(request.id, "the request's variant is neither null nor a string") };
  }
  return { request };
}

function answer(algorithms, line) {
  const { request, problem } = checkRequest(line);
  if (problem) return problem;
  const entry = Object.hasOwn(algorithms, request.algorithm) ? algorithms[request.algorithm] : null;
  const variants = (entry && entry.variants) || [];
  if (!entry || (request.variant != null && !variants.includes(request.variant))) {
    return { id: request.id, unsupported: true };
  }
  if ('accumulate' in request) return accumulated(request, entry, variants);
  try {
    // the line's own text tells `1.0` from `1` (literals.js): JSON.parse cannot
    checkInput(schemaFor(request.algorithm), request.input, fractionWritten(line));
    return { id: request.id, output: entry.run(request.input, request.variant || variants[0]) };
  } catch (error) {
    return { id: request.id, error: errorOf(error) };
  }
}

// An accumulated vector computed here (docs/adapter-protocol.md, "Accumulated vectors"):
// every case drawn and answered as a request would be, a progress line per block, then
// the digest and the checkpoints.
function accumulated(request, entry, variants) {
  const { stream, count, block, encoding } = request.accumulate;
  if (encoding !== ENCODING) return { id: request.id, unsupported: true, reason: `encoding ${encoding}` };
  const variant = request.variant || variants[0];
  const schema = schemaFor(request.algorithm);
  const answerOf = (input) => {
    try {
      checkInput(schema, input);
      return { output: entry.run(input, variant) };
    } catch (error) {
      return { error: errorOf(error).code };
    }
  };
  const progress = (index, digest) => {
    process.stdout.write(`${JSON.stringify({ id: request.id, checkpoint: { block: index, digest } })}\n`);
  };
  const { digest, checkpoints } = accumulate(stream, count, block, answerOf, progress);
  return { id: request.id, accumulated: { count, digest, checkpoints } };
}

// A rejected input answers its code; anything else thrown (a bug of the port on an input
// nobody tried, a missing vector file) answers internal-error with what was thrown, so one
// bad input costs one answer, never the rest of the batch.
function errorOf(error) {
  if (error instanceof InvalidInput) return { code: error.code, message: error.message };
  if (error instanceof SetupError) return { code: 'internal-error', message: error.message };
  return { code: 'internal-error', message: `${String(error)}${whereThrown(error)}` };
}

// The first frame of the stack inside this adapter's folder: where to look.
function whereThrown(error) {
  const stack = error instanceof Error && typeof error.stack === 'string' ? error.stack : '';
  const frame = stack.split('\n').find((line) => line.includes(__dirname));
  return frame ? ` (${frame.trim().replace(`${__dirname}${path.sep}`, '')})` : '';
}

// JSON.stringify can still throw (a BigInt in an output, a cycle): that is the port's bug
// too, answered the same way.
function encoded(algorithms, line) {
  const response = answer(algorithms, line);
  try {
    return JSON.stringify(response);
  } catch (error) {
    return JSON.stringify({ id: response.id, error: errorOf(error) });
  }
}

function main() {
  const algorithms = loadAlgorithms();
  const supported = {};
  for (const [id, entry] of Object.entries(algorithms)) supported[id] = entry.variants || [];
  const hello = {
    type: 'hello', protocol: 1, name: 'fairvec-node', version: '0.1.0', algorithms: supported,
    accumulate: true, // it computes accumulated vectors itself
  };
  process.stdout.write(JSON.stringify(hello) + '\n');
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on('line', (line) => process.stdout.write(encoded(algorithms, line) + '\n'));
}

main();
