'use strict';
// Shared by every family module of the Node.js adapter.

/** A rejected input: `code` is the error code the spec names for it. */
class InvalidInput extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

module.exports = { InvalidInput };
