'use strict';
// The one place the Node port checks every input: against the algorithm's `inputs` schema,
// with the rules of docs/spec-format.md ("Input errors"), mirroring reference/_input_checks.py
// (same order, same codes), so a fault the schema can say is found here, once, and the
// family files keep only the algorithms' own checks (step 7).
//
// Where the schema comes from: the `input_schema` every vector file carries
// (vectors/<family>/<name>.json, ../../vectors from this folder, in a checkout and in the
// installed package alike: both ship the vectors beside the adapters). Node has no YAML
// parser, and the vector file's copy is generated from the spec, so it is the spec's own
// schema, not a second copy to drift. Read lazily, once per algorithm, on its first request:
// an adapter asked for one algorithm reads one file's header (under a millisecond).
//
// The order, as in the reference:
//   1. the input is not an object: wrong-type;
//   2. a field the schema does not list: unknown-field (the first in sorted order);
//   3. a required field absent: missing-field (in the schema's `required` order);
//   4. a value of the wrong JSON type anywhere, items included: wrong-type;
//   5. text holding a lone surrogate (no UTF-8 form): not-unicode-text;
//   6. a broken constraint: the code the schema names beside it with `error`.
// Within 4 to 6 fields go in the order of `properties`, a place's own keywords before its
// items', items in index order, and at one place `enum`, `minimum`, `maximum`, `minItems`,
// `maxItems`, `uniqueItems`, `pattern`.
//
// Two things JSON.parse decides for us, where the reference (Python's json) sees more:
// - An integer written with a fraction or an exponent (`1.0`, `1e0`, `1e308`): Python reads
//   a float and the reference answers wrong-type; JSON.parse yields a number that cannot
//   tell. The adapter scans the request line for such numbers (literals.js) and hands their
//   places to checkInput as `written`: an integer field holding one is wrong-type here too
//   (issue 34 section 6: `game_number: 1.0` was an output, `game_number: 1e308` a range error).
//   Inputs computed here (accumulate.js) have no text: nothing is fraction-written.
// - A number too large for a double parses as Infinity: written as an integer (400 digits)
//   it counts as an integer here (out of every range), as the reference sees an integer
//   literal of 400 digits; `1e400` is fraction-written, so wrong-type for an integer, as for
//   the reference (a float).
// NaN cannot occur: JSON has no literal for it.

const fs = require('fs');
const path = require('path');
const { InvalidInput } = require('./lib');

const VECTORS = path.join(__dirname, '..', '..', 'vectors');
const CONSTRAINTS = ['enum', 'minimum', 'maximum', 'minItems', 'maxItems', 'uniqueItems', 'pattern'];
// Python's `re` reads these differently from JavaScript's RegExp (Unicode \d, \w, \s, \b;
// \A and \Z do not exist here): a schema using one needs a translation written first.
const UNTRANSLATED = /\\[dDwWsSbBAZ]/;

/** A problem with the adapter's own files: answered as internal-error, never a crash. */
class SetupError extends Error {}

const cache = new Map();

/** The compiled input schema of `algorithm`, read from its vector file on first use. */
function schemaFor(algorithm) {
  if (!cache.has(algorithm)) cache.set(algorithm, compile(algorithm));
  return cache.get(algorithm);
}

function compile(algorithm) {
  const [family, name] = algorithm.split(/\.(.*)/s);
  const file = path.join(VECTORS, family, `${name}.json`);
  const where = `vectors/${family}/${name}.json`;
  let schema;
  try {
    schema = readSchema(file);
  } catch (error) {
    throw new SetupError(`${where}: cannot read the input schema (${error.message}): reinstall fairvec`);
  }
  if (!isObject(schema) || !isObject(schema.properties)) {
    throw new SetupError(`${where}: no input_schema with properties: regenerate the vectors`);
  }
  return { fields: Object.keys(schema.properties), schema, patterns: patternsOf(schema, where) };
}

// The generator writes the header first and the vectors last, from a line of their own
// (fairvec/generate.py, render), and no header is near 64 KiB (the largest is 13 KB): so
// the header is read and parsed alone, skipping 18 MB of vectors over the 77 files (all 77
// schemas in about 25 ms instead of 300). A file laid out otherwise is read and parsed whole.
const VECTORS_LINE = ',\n  "vectors": [';
const HEAD_BYTES = 65536;

function readSchema(file) {
  const head = readPrefix(file, HEAD_BYTES);
  const end = head.indexOf(VECTORS_LINE);
  if (end !== -1) {
    try {
      return JSON.parse(`${head.slice(0, end)}}`).input_schema;
    } catch (error) {
      // not the generator's layout after all: read the whole file below
    }
  }
  return JSON.parse(fs.readFileSync(file, 'utf8')).input_schema;
}

function readPrefix(file, size) {
  const descriptor = fs.openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(size);
    return buffer.toString('utf8', 0, fs.readSync(descriptor, buffer, 0, size, 0));
  } finally {
    fs.closeSync(descriptor);
  }
}

/** Every `pattern` of the schema, compiled once, keyed by its text. */
function patternsOf(schema, where) {
  const patterns = new Map();
  const stack = [schema];
  while (stack.length) {
    const place = stack.pop();
    if (typeof place.pattern === 'string') patterns.set(place.pattern, specRegExp(place.pattern, where));
    if (isObject(place.properties)) stack.push(...Object.values(place.properties));
    if (isObject(place.items)) stack.push(place.items);
  }
  return patterns;
}

// A spec pattern means what JSON Schema (ECMA-262) says: `$` is the end of the text, so
// "<64 hex digits>\n" does not match ^[0-9a-f]{64}$ (the reference translates Python's `$`
// to match). JavaScript's RegExp already reads it so; the patterns whose escapes Python and
// JavaScript read differently are refused above.
function specRegExp(pattern, where) {
  if (UNTRANSLATED.test(pattern)) {
    throw new SetupError(`${where}: pattern ${pattern}: teach adapters/node/inputs.js its meaning`);
  }
  return new RegExp(pattern, 'u');
}

const NOTHING_WRITTEN = new Set();

/** Throws InvalidInput for the first fault of `input`, in the documented order. `written`:
 * the paths (JSON text) of the numbers written with a fraction or an exponent (literals.js). */
function checkInput(compiled, input, written = NOTHING_WRITTEN) {
  const { fields, schema } = compiled;
  if (!isObject(input)) throw new InvalidInput('wrong-type', `the input must be a JSON object, not ${jsonType(input)}`);
  const unknown = Object.keys(input).filter((key) => !fields.includes(key)).sort();
  if (unknown.length) {
    throw new InvalidInput('unknown-field', `no field ${JSON.stringify(unknown[0])}; the fields are ${fields.join(', ')}`);
  }
  for (const name of schema.required || []) {
    if (!Object.hasOwn(input, name)) throw new InvalidInput('missing-field', `the field ${name} is required`);
  }
  const faults = [];
  const context = { ...compiled, written };
  fields.forEach((name, rank) => {
    if (Object.hasOwn(input, name)) collect(context, schema.properties[name], input[name], rank, [], name, faults);
  });
  faults.sort(byPlace);
  const typeFault = faults.find((fault) => fault.keyword === 'type');
  if (typeFault) throw new InvalidInput('wrong-type', `${show(typeFault.path)}: ${typeFault.message}`);
  const surrogate = loneSurrogate(input);
  if (surrogate) throw new InvalidInput('not-unicode-text', `${surrogate}: holds a lone surrogate (no UTF-8 form)`);
  if (faults.length) {
    const fault = faults[0];
    throw new InvalidInput(codeFor(fault.schema, fault.keyword) || 'invalid-input', `${show(fault.path)}: ${fault.message}`);
  }
}

// Every fault of `value` (at `key` of the place `parent`) against `schema`, as jsonschema
// finds them: each keyword applies to the JSON types it is about and ignores the others.
// The place is built only for a fault: 10,000 words of a key cost no 10,000 arrays.
function collect(compiled, schema, value, rank, parent, key, faults) {
  const add = (keyword, message) => faults.push({ rank, path: [...parent, key], keyword, schema, message });
  const types = schema.type === undefined ? null : [].concat(schema.type);
  const fraction = typeof value === 'number' && compiled.written.size > 0
    && compiled.written.has(JSON.stringify([...parent, key]));
  if (types && !types.some((type) => hasType(value, type, fraction))) {
    add('type', `must be ${types.join(' or ')}, not ${fraction ? 'number (written with a fraction or an exponent)' : jsonType(value)}`);
  }
  if ('enum' in schema && !schema.enum.some((option) => jsonEqual(option, value))) {
    add('enum', `must be one of ${JSON.stringify(schema.enum)}`);
  }
  if (typeof value === 'number') {
    if ('minimum' in schema && value < schema.minimum) add('minimum', `must be at least ${schema.minimum}, got ${value}`);
    if ('maximum' in schema && value > schema.maximum) add('maximum', `must be at most ${schema.maximum}, got ${value}`);
  }
  if (Array.isArray(value)) collectArray(compiled, schema, value, rank, [...parent, key], faults, add);
  if (typeof value === 'string' && 'pattern' in schema && !compiled.patterns.get(schema.pattern).test(value)) {
    add('pattern', `must match ${schema.pattern}`);
  }
  if (isObject(value)) collectObject(compiled, schema, value, rank, [...parent, key], faults, add);
}

function collectArray(compiled, schema, value, rank, path, faults, add) {
  if ('minItems' in schema && value.length < schema.minItems) {
    add('minItems', `must have at least ${schema.minItems} items, got ${value.length}`);
  }
  if ('maxItems' in schema && value.length > schema.maxItems) {
    add('maxItems', `must have at most ${schema.maxItems} items, got ${value.length}`);
  }
  if (schema.uniqueItems === true && hasRepeat(value)) add('uniqueItems', 'must not repeat an item');
  if (isObject(schema.items)) {
    value.forEach((item, index) => collect(compiled, schema.items, item, rank, path, index, faults));
  }
}

// No spec nests an object inside its input yet; the reference's check allows it, so this
// follows jsonschema for `properties`, `required` and `additionalProperties: false` too.
function collectObject(compiled, schema, value, rank, path, faults, add) {
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const [name, sub] of Object.entries(properties)) {
    if (Object.hasOwn(value, name)) collect(compiled, sub, value[name], rank, path, name, faults);
  }
  for (const name of schema.required || []) {
    if (!Object.hasOwn(value, name)) add('required', `${JSON.stringify(name)} is required`);
  }
  if (schema.additionalProperties === false && Object.keys(value).some((key) => !Object.hasOwn(properties, key))) {
    add('additionalProperties', 'holds a field the schema does not list');
  }
}

// The reference sorts by (field, depth, path below the field, keyword); sort is stable, so
// faults at one place and keyword keep the order they were found in, as there.
function byPlace(a, b) {
  if (a.rank !== b.rank) return a.rank - b.rank;
  if (a.path.length !== b.path.length) return a.path.length - b.path.length;
  for (let i = 1; i < a.path.length; i += 1) {
    const order = comparePart(a.path[i], b.path[i]);
    if (order) return order;
  }
  return CONSTRAINTS.indexOf(a.keyword) - CONSTRAINTS.indexOf(b.keyword);
}

// Indices before names, each in its own order (the reference's (0, index) and (1, name)).
function comparePart(a, b) {
  if (typeof a !== typeof b) return typeof a === 'number' ? -1 : 1;
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

// `fraction`: the number was written with a fraction or an exponent, so it is no integer.
function hasType(value, type, fraction) {
  switch (type) {
    case 'integer':
      return typeof value === 'number' && !fraction && (Number.isInteger(value) || !Number.isFinite(value));
    case 'number':
      return typeof value === 'number';
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
    default:
      return false;
  }
}

// JSON Schema's equality (enum, uniqueItems): by JSON value, 1 equals 1.0, true is not 1.
function jsonEqual(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isObject(a) || isObject(b)) {
    if (!isObject(a) || !isObject(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
  }
  return a === b;
}

function hasRepeat(items) {
  // scalars through a Set (fast for 10,000 words); arrays and objects compared pairwise
  const scalars = items.filter((item) => item === null || typeof item !== 'object');
  if (new Set(scalars).size < scalars.length) return true;
  const others = items.filter((item) => item !== null && typeof item === 'object');
  return others.some((item, i) => others.slice(i + 1).some((other) => jsonEqual(item, other)));
}

// The place of the first string holding a lone surrogate, anywhere in the input (not only
// where the schema looks). An explicit stack: an input may nest deeper than Node recurses.
// Each entry is [value, parent entry, key]; the path is spelled out only for the one found.
function loneSurrogate(input) {
  const stack = [[input, null, null]];
  while (stack.length) {
    const entry = stack.pop();
    const value = entry[0];
    if (typeof value === 'string') {
      if (!value.isWellFormed()) return show(pathOf(entry));
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i -= 1) stack.push([value[i], entry, i]);
    } else if (isObject(value)) {
      for (const key of Object.keys(value).reverse()) stack.push([value[key], entry, key]);
    }
  }
  return null;
}

function pathOf(entry) {
  const path = [];
  for (let at = entry; at[1] !== null; at = at[1]) path.unshift(at[2]);
  return path;
}

function codeFor(schema, keyword) {
  const error = schema.error;
  if (typeof error === 'string') return error;
  return isObject(error) && typeof error[keyword] === 'string' ? error[keyword] : null;
}

function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function jsonType(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function show(at) {
  return at.map((part, i) => (typeof part === 'number' ? `[${part}]` : i ? `.${part}` : part)).join('') || 'input';
}

module.exports = { schemaFor, checkInput, SetupError };
