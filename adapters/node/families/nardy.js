'use strict';
// Nardy (backgammon) dice from a committed sequence and the players' cuts,
// shared/seeds/003_c4a62d84289b5613.txt. The document prints no code, only prose; this is
// a port of that prose, written as an engine would run it: the decoded sequence is read
// one number at a time from the start position, a mask digit decides whether the number
// is a die, and every two dice make a roll. Sections are named where each rule comes from.

const { InvalidInput } = require('../lib');
const { openArchive } = require('../archives');

// "Алгоритм контроля честности в нардах": each pair of numbers is one character of
// "capital Latin letters and digits"; 11 = A, 12 = B, ..., 66 = 9.
const SYMBOLS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const ROLL_TEXT = /^[1-6][1-6]$/;
// Every type and range of the inputs (die faces 1-6, cuts 1-7 or null, start >= 1,
// count and forbidden_rolls >= 0) is checked before run() by inputs.js, against the spec's
// schema; only what a schema cannot say is checked here.

function pack(numbers) {
  if (numbers.length % 2 !== 0) {
    throw new InvalidInput('odd-count', `${numbers.length} numbers cannot be stored two per character`);
  }
  let text = '';
  for (let i = 0; i < numbers.length; i += 2) text += SYMBOLS[(numbers[i] - 1) * 6 + numbers[i + 1] - 1];
  return text;
}

function unpack(text) {
  const numbers = [];
  for (let i = 0; i < text.length; i += 1) {
    const code = SYMBOLS.indexOf(text[i]);
    if (code === -1) {
      throw new InvalidInput('bad-character', `character ${i} (${JSON.stringify(text[i])}) is not A-Z or 0-9`);
    }
    numbers.push(Math.floor(code / 6) + 1, (code % 6) + 1);
  }
  return numbers;
}

// "Срезка": a cut is 1 to 7; a player who does not choose in 5 seconds gets 7.
const cutValue = (cut) => (cut === null || cut === undefined ? 7 : cut);

// "Генерация бросков": 1=001, 2=010, ..., 7=111; the first player's string first.
const threeBits = (cut) => cut.toString(2).padStart(3, '0');
const maskOf = (a, b) => threeBits(a) + threeBits(b);

function requireMask(mask) {
  const halvesOk = /^[01]{6}$/.test(mask) && mask.slice(0, 3) !== '000' && mask.slice(3) !== '000';
  if (!halvesOk) throw new InvalidInput('bad-mask', `mask ${JSON.stringify(mask)} is not two cuts in binary`);
}

// "Эта строка применяется к очередным 6 числам": from `from` (0-based index into numbers),
// the mask digit of each number decides whether it is a die. Yields [index, face] for each die.
function* dice(numbers, from, mask) {
  for (let index = from, digit = 0; index < numbers.length; index += 1, digit = (digit + 1) % 6) {
    if (mask[digit] === '1') yield [index, numbers[index]];
  }
}

// Two consecutive dice are one roll, whichever windows they came from.
function* rollsOf(diceStream) {
  let first = null;
  for (const die of diceStream) {
    if (first === null) {
      first = die;
    } else {
      yield { text: `${first[1]}${die[1]}`, at: [first[0] + 1, die[0] + 1] };
      first = null;
    }
  }
}

function masked(input) {
  requireMask(input.mask);
  const kept = [...dice(input.numbers, 0, input.mask)];
  return { kept: kept.map(([, face]) => face), pairs: [...rollsOf(kept)].map((roll) => roll.text) };
}

// The whole game: "Произведение срезок задает стартовую позицию" (4*5 = 20: skip 19),
// then the mask, then "если выпавшая комбинация запрещена правилами ... выпавшая пара
// отбрасывается, и берется следующая пара", and "в случае нехватки чисел" the game has
// to leave the sequence, which a verifier reports as sequence-exhausted.
// The fields' own ranges (the input schema's) are checked before the sequence is read:
// docs/spec-format.md, "Input errors".
function gameRolls(input) {
  const a = cutValue(input.cut1);
  const b = cutValue(input.cut2);
  const start = input.start === null || input.start === undefined ? a * b : input.start;
  const want = input.count === undefined ? null : input.count;
  const ruledRolls = input.forbidden_rolls === undefined ? 1 : input.forbidden_rolls;
  const numbers = unpack(input.sequence);
  const banned = input.forbidden || [];
  banned.forEach((roll, index) => {
    if (!ROLL_TEXT.test(roll)) {
      throw new InvalidInput('bad-forbidden', `forbidden[${index}] ${JSON.stringify(roll)} is not a roll`);
    }
  });

  const mask = maskOf(a, b);
  const out = { start, mask, rolls: [], positions: [], dropped: [], dropped_positions: [] };
  for (const roll of rollsOf(dice(numbers, start - 1, mask))) {
    if (want !== null && out.rolls.length === want) break;
    if (out.rolls.length < ruledRolls && banned.includes(roll.text)) {
      out.dropped.push(roll.text);
      out.dropped_positions.push(roll.at);
    } else {
      out.rolls.push(roll.text);
      out.positions.push(roll.at);
    }
  }
  if (want !== null && out.rolls.length < want) {
    throw new InvalidInput('sequence-exhausted', `only ${out.rolls.length} of ${want} rolls in the sequence`);
  }
  return out;
}

function cutsReport({ cut1, cut2 }) {
  const a = cutValue(cut1);
  const b = cutValue(cut2);
  return {
    cut1: a,
    cut2: b,
    cut1_bits: threeBits(a),
    cut2_bits: threeBits(b),
    start: a * b,
    skipped: a * b - 1,
    mask: maskOf(a, b),
  };
}

// "Сервис проверки": "сам архив + пароль к нему". The file's line breaks carry no symbol
// (spec decision file-line-breaks); its bytes are read one character each, so a byte that is
// not A-Z or 0-9 fails in unpack as bad-character.
function archiveRolls(input) {
  const opened = openArchive(input.archive, input.password);
  const sequence = opened.bytes.toString('latin1').split('\r\n').join('').split('\n').join('');
  unpack(sequence);
  return {
    format: opened.format,
    encryption: opened.encryption,
    method: opened.method,
    member: opened.member,
    sequence,
    ...gameRolls({ ...input, sequence }),
  };
}

module.exports = {
  'nardy.encode': { run: (input) => ({ sequence: pack(input.numbers) }) },
  'nardy.decode': { run: (input) => ({ numbers: unpack(input.sequence) }) },
  'nardy.cuts': { run: cutsReport },
  'nardy.mask': { run: masked },
  'nardy.rolls': { run: gameRolls },
  'nardy.archive': { run: archiveRolls },
};
