'use strict';
// Which numbers of a request line were written with a fraction or an exponent (`1.0`,
// `10.0`, `1e308`, `-0.0`). JSON.parse turns `1.0` into the number 1, the same as `1`,
// but the reference reads it with Python's json, as a float, and answers wrong-type for an
// integer field (docs/spec-format.md, "Input errors": `1.0` is not an integer here). So the
// adapter looks at the text itself, once per line: this scanner walks the line (already
// accepted by JSON.parse, so well-formed) and keeps the place of every such number under
// the request's `input`, as the JSON text of its path ('["game_number"]', '["hands",0]').
// inputs.js asks it only about numbers an integer field holds.

const NUMBER_CHARACTER = /[0-9eE.+-]/;
const FRACTION_OR_EXPONENT = /[.eE]/;
const WHITESPACE = ' \t\n\r';

/** The paths below `input` of the numbers written with a fraction or an exponent. */
function fractionWritten(line) {
  const found = new Set();
  // one entry per open container: an array's current index, or an object's current key
  // (`key` null between a ',' and the next key)
  const open = [];
  let at = 0;
  while (at < line.length) {
    const character = line[at];
    if (WHITESPACE.includes(character) || character === ':') {
      at += 1;
    } else if (character === '{' || character === '[') {
      open.push(character === '[' ? { index: 0 } : { key: null });
      at += 1;
    } else if (character === '}' || character === ']') {
      open.pop();
      at += 1;
    } else if (character === ',') {
      const top = open[open.length - 1];
      if ('index' in top) top.index += 1;
      else top.key = null;
      at += 1;
    } else if (character === '"') {
      const end = stringEnd(line, at);
      const top = open[open.length - 1];
      if (top && 'key' in top && top.key === null) top.key = JSON.parse(line.slice(at, end));
      at = end;
    } else if (character === '-' || (character >= '0' && character <= '9')) {
      let end = at + 1;
      while (end < line.length && NUMBER_CHARACTER.test(line[end])) end += 1;
      if (FRACTION_OR_EXPONENT.test(line.slice(at, end))) remember(open, found);
      at = end;
    } else {
      at += 1; // a letter of true, false or null
    }
  }
  return found;
}

// The index just past the closing quote of the string opening at `start`.
function stringEnd(line, start) {
  let at = start + 1;
  while (line[at] !== '"') at += line[at] === '\\' ? 2 : 1;
  return at + 1;
}

function remember(open, found) {
  const path = open.map((place) => ('index' in place ? place.index : place.key));
  if (path[0] === 'input' && path.length > 1) found.add(JSON.stringify(path.slice(1)));
}

module.exports = { fractionWritten };
