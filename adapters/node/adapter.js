#!/usr/bin/env node
'use strict';
// The fairvec Node.js adapter: plain Node 20, no npm dependencies.
// Protocol (docs/adapter-protocol.md): print one hello line, then answer each request
// line on stdin with one response line on stdout, in order.
//
// Each file in families/ exports { "<algorithm id>": { variants?: [...], run(input, variant) } }.

const fs = require('fs');
const path = require('path');
const readline = require('readline');
const { InvalidInput } = require('./lib');

function loadAlgorithms() {
  const dir = path.join(__dirname, 'families');
  const algorithms = {};
  for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.js')).sort()) {
    Object.assign(algorithms, require(path.join(dir, file)));
  }
  return algorithms;
}

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
  if (!('input' in request)) return { problem: badRequest(request.id, 'the request has no input') };
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
  try {
    return { id: request.id, output: entry.run(request.input, request.variant || variants[0]) };
  } catch (error) {
    if (error instanceof InvalidInput) {
      return { id: request.id, error: { code: error.code, message: error.message } };
    }
    throw error;
  }
}

function main() {
  const algorithms = loadAlgorithms();
  const supported = {};
  for (const [id, entry] of Object.entries(algorithms)) supported[id] = entry.variants || [];
  const write = (message) => process.stdout.write(JSON.stringify(message) + '\n');
  write({ type: 'hello', protocol: 1, name: 'fairvec-node', version: '0.1.0', algorithms: supported });
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on('line', (line) => write(answer(algorithms, line)));
}

main();
