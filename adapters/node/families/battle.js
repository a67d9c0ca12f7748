'use strict';
// The battle game, ported from the document's own TypeScript
// (shared/seeds/001_ff93235b333a485f.txt, "Context", "Picking Moves", "Calculating ...").

const crypto = require('crypto');
const { InvalidInput } = require('../lib');

// Every type, range and enum of the inputs is checked before run() by inputs.js, against
// the spec's schema. The hashes are matched whole again: the schema's pattern passes
// "<64 digits>\n" (its `$` is Python's, as the reference reads it), the reference's own
// check does not.
const HEX64 = /^[0-9a-fA-F]{64}$/;

function getHash(input) {
  return crypto.createHash('sha256').update(input).digest('hex');
}

function inputString({ kind, server_seed, battle_id, player_address, round_num, player_number }) {
  return `${kind}:${server_seed}:${battle_id}:${player_address}:${round_num}:${player_number}`;
}

function ticket(hash) {
  if (!HEX64.test(hash)) throw new InvalidInput('bad-hash', 'a hash is 64 hex digits');
  return parseInt(hash.substring(0, 8), 16);
}

const roundTicket = (kind, input) => ticket(getHash(inputString({ ...input, kind })));

function attackOutcome(value) {
  const reduced = value % 100;
  if (reduced <= 19) return [reduced, 'Miss'];
  if (reduced >= 20 && reduced <= 51) return [reduced, 'Super Active'];
  return [reduced, 'Hit'];
}

function damageFor(value, attack) {
  if (attack === 'Miss') return 0;
  if (attack === 'Hit') return (value % 21) + 25;
  return (value % 15) + 46;
}

module.exports = {
  'battle.input_string': { run: (input) => ({ input: inputString(input) }) },
  'battle.hash': { run: (input) => ({ hash: getHash(input.input) }) },
  'battle.ticket': { run: (input) => ({ ticket: ticket(input.hash) }) },
  'battle.move': {
    run: (input) => {
      const value = roundTicket('move', input);
      return { ticket: value, move: ['fire', 'grass', 'water'][value % 3] };
    },
  },
  'battle.attack': {
    run: (input) => {
      const [reduced, attack] = attackOutcome(roundTicket('attack_probability', input));
      return { ticket: reduced, attack };
    },
  },
  'battle.damage': {
    run: (input) => {
      const value = roundTicket('damage', input);
      return { ticket: value, damage: damageFor(value, input.attack) };
    },
  },
  'battle.commitment': {
    run: ({ server_seed, server_seed_hash }) => {
      if (!HEX64.test(server_seed_hash)) throw new InvalidInput('bad-hash', 'server_seed_hash');
      const hash = getHash(server_seed);
      return { hash, matches: hash === server_seed_hash.toLowerCase() };
    },
  },
};
