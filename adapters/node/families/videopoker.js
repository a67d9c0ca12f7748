'use strict';
// Encrypted video poker, ported from the PHP script its author printed
// (shared/seeds/004_358a9db53bf25e27.txt, "Fair Gaming", second copy: "I also present a copy
// of the code below"; saved verbatim in docs/families/videopoker/author_script.php).
// The deal/draw follows the "Fair Gaming" prose, and the hand evaluation the three tables of
// "Analysis" (the script prints cards only; it never scores a hand).

const crypto = require('crypto');
const { InvalidInput } = require('../lib');

// $rank_array and $suit_array of the script ("A", 2, ..., 10, "J", "Q", "K": as text here).
const RANK_ARRAY = ['A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'];
const SUIT_ARRAY = ['spades', 'hearts', 'diamonds', 'clubs'];
const HEX128 = /^[0-9a-fA-F]{128}$/;
const HEX64 = /^[0-9a-fA-F]{64}$/;

// hash('sha512', ...) / hash('sha256', ...) of PHP: the string's bytes (UTF-8 here), hex.
const phpHash = (algo, text) => crypto.createHash(algo).update(text, 'utf8').digest('hex');

function cardOf(hexToDec) {
  if (!Number.isInteger(hexToDec) || hexToDec < 0 || hexToDec > 51) {
    throw new InvalidInput('card-out-of-range', `a card is 0 to 51, got ${hexToDec}`);
  }
  // $rank=$hex_to_dec%13; $suit=intdiv($hex_to_dec,13)%4;
  return { number: hexToDec, rank: RANK_ARRAY[hexToDec % 13], suit: SUIT_ARRAY[Math.floor(hexToDec / 13) % 4] };
}

// The script's do { ... } while ($cards_found<10) loop, for `wanted` cards (10 in the script).
// One change: the script tests `$position==128` after every pair, so it also reports
// "No more space" when the tenth card is the very last pair; here running out is an error only
// when cards are still missing (quirk php-false-exhausted).
function findCards(combinedHash, wanted) {
  if (!HEX128.test(combinedHash)) throw new InvalidInput('bad-hash', 'hash is 128 hex digits');
  if (!Number.isInteger(wanted) || wanted < 1 || wanted > 10) {
    throw new InvalidInput('bad-count', `count is 1 to 10, got ${wanted}`);
  }
  const cardArray = [];
  const rows = [];
  let position = 0;
  do {
    const firstTwo = combinedHash.substr(position, 2);
    const byte = parseInt(firstTwo, 16);
    const hexToDec = byte % 100;
    let status = 'out-of-range';
    if (hexToDec <= 51) {
      let repeat = 0;
      for (let i = 0; i < cardArray.length; i++) {
        if (hexToDec === cardArray[i]) repeat = 1;
      }
      if (repeat === 0) {
        cardArray.push(hexToDec);
        status = 'card';
      } else {
        status = 'repeat';
      }
    }
    rows.push({ hex: firstTwo, byte, value: hexToDec, status });
    position += 2;
    if (position === 128 && cardArray.length < wanted) {
      throw new InvalidInput(
        'hash-exhausted',
        `no more space in hash: ${cardArray.length} of ${wanted} cards found (${cardArray.join(', ')})`,
      );
    }
  } while (cardArray.length < wanted);
  return { rows, cardArray };
}

function checkCards(numbers, size) {
  if (!Array.isArray(numbers) || numbers.length !== size) {
    throw new InvalidInput('wrong-card-count', `need ${size} cards`);
  }
  numbers.forEach(cardOf);
  if (new Set(numbers).size !== numbers.length) throw new InvalidInput('duplicate-card', 'one deck');
}

// "Fair Gaming": "The first five cards found will be dealt on the deal, starting from left to
// right. The second five cards will be in a queue ... if the player draws three cards, then he
// will get the 6th, 7th, and 8th cards in the queue. The position of the discards does not matter."
function dealAndDraw(cardArray, held) {
  checkCards(cardArray, 10);
  for (const p of held) {
    if (!Number.isInteger(p) || p < 1 || p > 5) throw new InvalidInput('held-position-out-of-range', `${p}`);
  }
  if (new Set(held).size !== held.length) throw new InvalidInput('duplicate-held-position', 'twice');
  const hand = cardArray.slice(0, 5);
  const drawn = [];
  let next = 5;
  for (let slot = 0; slot < 5; slot++) {
    if (!held.includes(slot + 1)) {
      hand[slot] = cardArray[next++];
      drawn.push(hand[slot]);
    }
  }
  return { dealt: cardArray.slice(0, 5), drawn, final: hand };
}

// "Analysis": the Pays column of each table ("for one", per credit bet).
const PAYS = {
  'jacks-or-better': {
    'royal-flush': 500, 'straight-flush': 75, 'four-of-a-kind': 20, 'full-house': 9, flush: 6,
    straight: 4, 'three-of-a-kind': 3, 'two-pair': 2, 'jacks-or-better': 1, 'all-other': 0,
  },
  'tens-or-better': {
    'royal-flush': 500, 'straight-flush': 75, 'four-of-a-kind': 22, 'full-house': 6, flush: 5,
    straight: 4, 'three-of-a-kind': 3, 'two-pair': 2, 'tens-or-better': 1, 'all-other': 0,
  },
  // The table headed "Tens or Better Analysis" under the Bonus Poker paragraph; its row pays 70
  // for four aces (the paragraph's title "5-8-25-35-75-45-500" says 75).
  'bonus-poker': {
    'royal-flush': 500, 'straight-flush': 45, 'four-aces': 70, 'four-2s-3s-4s': 35,
    'four-5s-thru-ks': 25, 'full-house': 8, flush: 5, straight: 4, 'three-of-a-kind': 3,
    'two-pair': 2, 'jacks-or-better': 1, 'all-other': 0,
  },
};

// Written from the tables, independently of the reference: a 13-slot rank histogram (0 = ace)
// and a bit mask of the ranks present for the straights.
function evaluate(numbers, paytable) {
  checkCards(numbers, 5);
  const pays = PAYS[paytable];
  if (!pays) throw new InvalidInput('unknown-paytable', `${paytable}`);
  const histogram = new Array(13).fill(0);
  let mask = 0;
  for (const n of numbers) {
    histogram[n % 13] += 1;
    mask |= 1 << (n % 13);
  }
  const suits = new Set(numbers.map((n) => Math.floor(n / 13)));
  const flush = suits.size === 1;
  const broadway = 0b1111000000001; // 10 J Q K A
  let straight = mask === broadway;
  for (let low = 0; low <= 8 && !straight; low++) straight = mask === (0b11111 << low); // A-2-3-4-5 .. 9-K
  const counts = histogram.filter((c) => c > 0).sort((a, b) => b - a).join('');
  let hand;
  if (straight && flush) hand = mask === broadway ? 'royal-flush' : 'straight-flush';
  else if (counts === '41') hand = 'four-of-a-kind';
  else if (counts === '32') hand = 'full-house';
  else if (flush) hand = 'flush';
  else if (straight) hand = 'straight';
  else if (counts === '311') hand = 'three-of-a-kind';
  else if (counts === '221') hand = 'two-pair';
  else if (counts === '2111') hand = 'pair';
  else hand = 'high-card';
  let event = hand;
  if (hand === 'high-card') event = 'all-other';
  if (hand === 'pair') {
    const pairRank = histogram.indexOf(2); // 0 = ace, 9 = ten, 10 = jack
    const tens = paytable === 'tens-or-better';
    const qualifies = pairRank === 0 || pairRank >= (tens ? 9 : 10);
    event = qualifies ? (tens ? 'tens-or-better' : 'jacks-or-better') : 'all-other';
  }
  if (hand === 'four-of-a-kind' && paytable === 'bonus-poker') {
    const quad = histogram.indexOf(4);
    event = quad === 0 ? 'four-aces' : quad <= 3 ? 'four-2s-3s-4s' : 'four-5s-thru-ks';
  }
  // "The player must bet 10 credits": payout is what those 10 credits return.
  return { hand, event, pays: pays[event], payout: pays[event] * 10 };
}

// The script's ending: `if ($server_seed_hash==$next_hash)`, but compared as hex text without
// regard to case, never as numbers (quirks php-loose-comparison, php-case-sensitive-hash).
function commitment(serverSeed, nextHash) {
  if (typeof nextHash !== 'string' || !HEX64.test(nextHash)) throw new InvalidInput('bad-hash', '64 hex digits');
  const serverSeedHash = phpHash('sha256', serverSeed);
  return { hash: serverSeedHash, matches: serverSeedHash === nextHash.toLowerCase() };
}

const cardsOf = (numbers) => numbers.map(cardOf);

module.exports = {
  'videopoker.hash': {
    run: ({ server_seed, client_seed }) => {
      const combinedSeed = server_seed + client_seed; // $combined_seed = $server_seed.$client_seed;
      return { combined_seed: combinedSeed, hash: phpHash('sha512', combinedSeed) };
    },
  },
  'videopoker.cards': {
    run: ({ hash, count }) => {
      const { rows, cardArray } = findCards(hash, count == null ? 10 : count);
      return { rows, cards: cardsOf(cardArray) };
    },
  },
  'videopoker.card': { run: ({ number }) => cardOf(number) },
  'videopoker.draw': {
    run: ({ cards, held }) => {
      const { dealt, drawn, final } = dealAndDraw(cards, held);
      return { dealt: cardsOf(dealt), drawn: cardsOf(drawn), final: cardsOf(final) };
    },
  },
  'videopoker.evaluate': { run: ({ cards, paytable }) => evaluate(cards, paytable) },
  'videopoker.commitment': {
    run: ({ server_seed, server_seed_hash }) => commitment(server_seed, server_seed_hash),
  },
  'videopoker.game': {
    run: ({ server_seed, client_seed, held, paytable }) => {
      const combinedSeed = server_seed + client_seed;
      const combinedHash = phpHash('sha512', combinedSeed);
      const { cardArray } = findCards(combinedHash, 10);
      const { dealt, drawn, final } = dealAndDraw(cardArray, held);
      return {
        combined_seed: combinedSeed,
        hash: combinedHash,
        cards: cardsOf(cardArray),
        dealt: cardsOf(dealt),
        drawn: cardsOf(drawn),
        final: cardsOf(final),
        ...evaluate(final, paytable),
      };
    },
  },
};
