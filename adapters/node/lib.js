'use strict';
// Shared by every family module of the Node.js adapter.

/** A rejected input: `code` is the error code the spec names for it. */
class InvalidInput extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// Every algorithm of the family modules in families/, by id (the adapter answers with
// them, accumulate.js computes a digest with them). Required when called: the family
// modules require this file themselves.
function loadAlgorithms() {
  const fs = require('fs');
  const path = require('path');
  const dir = path.join(__dirname, 'families');
  const algorithms = {};
  for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.js')).sort()) {
    Object.assign(algorithms, require(path.join(dir, file)));
  }
  return algorithms;
}

module.exports = { InvalidInput, loadAlgorithms };
