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
// Every type, range, count and enum of the inputs (cards 0-51, five or ten of them, none
// twice; held positions 1-5, none twice; the pay table names) is checked before run() by
// inputs.js, against the spec's schema. The hashes are matched whole again: the schema's
// pattern passes "<digits>\n" (its `$` is Python's, as the reference reads it).
const HEX128 = /^[0-9a-fA-F]{128}$/;
const HEX64 = /^[0-9a-fA-F]{64}$/;

// hash('sha512', ...) / hash('sha256', ...) of PHP: the string's bytes (UTF-8 here), hex.
const phpHash = (algo, text) => crypto.createHash(algo).update(text, 'utf8').digest('hex');

function cardOf(hexToDec) {
  // $rank=$hex_to_dec%13; $suit=intdiv($hex_to_dec,13)%4;
  return { number: hexToDec, rank: RANK_ARRAY[hexToDec % 13], suit: SUIT_ARRAY[Math.floor(hexToDec / 13) % 4] };
}

// The script's do { ... } while ($cards_found<10) loop, for `wanted` cards (10 in the script).
// One change: the script tests `$position==128` after every pair, so it also reports
// "No more space" when the tenth card is the very last pair; here running out is an error only
// when cards are still missing (quirk php-false-exhausted).
function findCards(combinedHash, wanted) {
  if (!HEX128.test(combinedHash)) throw new InvalidInput('bad-hash', 'hash is 128 hex digits');
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

// "Fair Gaming": "The first five cards found will be dealt on the deal, starting from left to
// right. The second five cards will be in a queue ... if the player draws three cards, then he
// will get the 6th, 7th, and 8th cards in the queue. The position of the discards does not matter."
function dealAndDraw(cardArray, held) {
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
  const pays = PAYS[paytable];
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
  if (!HEX64.test(nextHash)) throw new InvalidInput('bad-hash', '64 hex digits');
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

// --- best hold and whole-table analysis (videopoker.best_hold, videopoker.analysis) --------
// Written from the specs. One engine for both: N_k[S] counts, for every set S of k <= 4
// cards, the five-card hands containing S by final-hand class; a hold's draws are then
// sum over T within the discards of (-1)^|T| N[held + T] (inclusion-exclusion), 32 lookups
// per deal. The analysis plays one deal per suit class (134,459 of them, weighted by their
// sizes) rather than all 2,598,960 deals: see suitClasses below.

const CLASSES = [
  'royal-flush', 'straight-flush', 'four-aces', 'four-2s-3s-4s', 'four-5s-thru-ks', 'full-house',
  'flush', 'straight', 'three-of-a-kind', 'two-pair', 'pair-jacks-to-aces', 'pair-tens',
  'pair-2s-to-9s', 'high-card',
];
const NC = CLASSES.length;
const BINOM = Array.from({ length: 53 }, (_, n) => Array.from({ length: 6 }, (_, k) => {
  let c = 1;
  for (let i = 0; i < k; i++) c = (c * (n - i)) / (i + 1);
  return k > n ? 0 : c;
}));
const DRAWS = [0, 1, 2, 3, 4, 5].map((k) => BINOM[47][k]);
const DEAL_WEIGHT = 7669695; // lcm of C(47, 0..5)
const POP = Array.from({ length: 32 }, (_, m) => [0, 1, 2, 3, 4].filter((i) => (m >> i) & 1).length);
const SHARE = Array.from({ length: 32 }, (_, m) => DEAL_WEIGHT / DRAWS[5 - POP[m]]);
// Equal values: more cards held first, then the held positions (ascending) as lists, smaller first.
const TIE_ORDER = Array.from({ length: 32 }, (_, m) => m).sort((a, b) => {
  if (POP[a] !== POP[b]) return POP[b] - POP[a];
  const pa = [0, 1, 2, 3, 4].filter((i) => (a >> i) & 1);
  const pb = [0, 1, 2, 3, 4].filter((i) => (b >> i) & 1);
  for (let i = 0; i < pa.length; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
});

// The class of five cards (ascending), without allocating: equal-rank pairs among the ten
// pairs of cards give the shape (1 pair, 2 two pair, 3 trips, 4 full house, 6 quads).
const BROADWAY = 0b1111000000001; // 10 J Q K A (bit 0 = ace)
const STRAIGHT = new Uint8Array(1 << 13);
STRAIGHT[BROADWAY] = 1;
for (let low = 0; low <= 8; low++) STRAIGHT[0b11111 << low] = 1;
function classOf(c) {
  const r0 = c[0] % 13, r1 = c[1] % 13, r2 = c[2] % 13, r3 = c[3] % 13, r4 = c[4] % 13;
  let equal = 0;
  let paired = -1;
  if (r0 === r1) { equal++; paired = r0; }
  if (r0 === r2) { equal++; paired = r0; }
  if (r0 === r3) { equal++; paired = r0; }
  if (r0 === r4) { equal++; paired = r0; }
  if (r1 === r2) { equal++; paired = r1; }
  if (r1 === r3) { equal++; paired = r1; }
  if (r1 === r4) { equal++; paired = r1; }
  if (r2 === r3) { equal++; paired = r2; }
  if (r2 === r4) { equal++; paired = r2; }
  if (r3 === r4) { equal++; paired = r3; }
  if (equal === 0) {
    const mask = (1 << r0) | (1 << r1) | (1 << r2) | (1 << r3) | (1 << r4);
    const flush = Math.floor(c[0] / 13) === Math.floor(c[4] / 13);
    const straight = STRAIGHT[mask] === 1;
    if (straight && flush) return mask === BROADWAY ? 0 : 1;
    if (flush) return 6;
    if (straight) return 7;
    return 13;
  }
  if (equal === 6) return paired === 0 ? 2 : paired <= 3 ? 3 : 4;
  if (equal === 4) return 5;
  if (equal === 3) return 8;
  if (equal === 2) return 9;
  return paired === 0 || paired >= 10 ? 10 : paired === 9 ? 11 : 12;
}

const B = new Float64Array(53 * 6); // B[n * 6 + k] = C(n, k)
for (let n = 0; n <= 52; n++) for (let k = 0; k <= 5; k++) B[n * 6 + k] = BINOM[n][k];
const HIGH = Array.from({ length: 32 }, (_, m) => (m ? 31 - Math.clz32(m) : -1));

// ranks[m]: colex rank of the cards at the positions of mask m, cards ascending; the card at
// the highest position of m is the largest, so rank(m) = rank(m minus it) + C(card, |m|).
function subsetRanks(cards, ranks) {
  ranks[0] = 0;
  for (let m = 1; m < 32; m++) {
    const h = HIGH[m];
    ranks[m] = ranks[m ^ (1 << h)] + B[cards[h] * 6 + POP[m]];
  }
}

// N[4] is counted from the hands; each smaller table from the next: a hand holding a k-set
// T holds 5 - k of the (k+1)-sets containing T, so N[k][T] = sum of N[k+1][T + card] / (5 - k).
let ENGINE = null;
function engine() {
  if (ENGINE) return ENGINE;
  const N = [0, 1, 2, 3, 4].map((k) => new Int32Array(BINOM[52][k] * NC));
  const hand = [0, 0, 0, 0, 0];
  const N4 = N[4];
  for (let a = 0; a < 48; a++) for (let b = a + 1; b < 49; b++) for (let c = b + 1; c < 50; c++)
    for (let d = c + 1; d < 51; d++) for (let e = d + 1; e < 52; e++) {
      hand[0] = a; hand[1] = b; hand[2] = c; hand[3] = d; hand[4] = e;
      const cls = classOf(hand);
      const ba = B[a * 6 + 1], bb1 = B[b * 6 + 1], bb2 = B[b * 6 + 2], bc2 = B[c * 6 + 2];
      const bc3 = B[c * 6 + 3], bd3 = B[d * 6 + 3], bd4 = B[d * 6 + 4], be4 = B[e * 6 + 4];
      N4[(bb1 + bc2 + bd3 + be4) * NC + cls]++; // without a
      N4[(ba + bc2 + bd3 + be4) * NC + cls]++; // without b
      N4[(ba + bb2 + bd3 + be4) * NC + cls]++; // without c
      N4[(ba + bb2 + bc3 + be4) * NC + cls]++; // without d
      N4[(ba + bb2 + bc3 + bd4) * NC + cls]++; // without e
    }
  for (let k = 3; k >= 0; k--) {
    const big = N[k + 1];
    const small = N[k];
    const set = new Array(k + 1);
    // every (k+1)-set, cards ascending, with its rank; each k-subset gets its counts
    const walk = (depth, from, rank) => {
      if (depth === k + 1) {
        for (let skip = 0; skip <= k; skip++) {
          let r = 0;
          for (let j = 0, i = 0; i <= k; i++) if (i !== skip) r += B[set[i] * 6 + ++j];
          for (let x = 0; x < NC; x++) small[r * NC + x] += big[rank * NC + x];
        }
        return;
      }
      for (let card = from; card < 52; card++) {
        set[depth] = card;
        walk(depth + 1, card + 1, rank + B[card * 6 + depth + 1]);
      }
    };
    walk(0, 0, 0);
    for (let i = 0; i < small.length; i++) small[i] /= 5 - k;
  }
  ENGINE = { N };
  return ENGINE;
}

// The draws of hold `hold` (mask over the ascending cards) by class, through
// sum over S containing the hold of (-1)^(|S| - |hold|) N[S].
function classCounts(cards, ranks, hold, out) {
  const { N } = engine();
  out.fill(0);
  for (let m = 0; m < 32; m++) {
    if ((m & hold) !== hold) continue;
    const sign = (POP[m] - POP[hold]) % 2 ? -1 : 1;
    if (m === 31) { out[classOf(cards)] += sign; continue; }
    const table = N[POP[m]];
    const base = ranks[m] * NC;
    for (let x = 0; x < NC; x++) out[x] += sign * table[base + x];
  }
  return out;
}

// Per mask, the total pays over the hold's draws, from per-set pay sums P[k][rank].
function paySums(cards, ranks, P, classPays, out) {
  for (let m = 0; m < 31; m++) out[m] = P[POP[m]][ranks[m]];
  out[31] = classPays[classOf(cards)];
  for (let bit = 0; bit < 5; bit++) {
    const b = 1 << bit;
    for (let m = 0; m < 32; m++) if (!(m & b)) out[m] -= out[m | b];
  }
  return out;
}

function perSetPays(classPays) {
  const { N } = engine();
  return N.map((table) => {
    const out = new Float64Array(table.length / NC);
    for (let i = 0; i < out.length; i++) {
      let v = 0;
      for (let x = 0; x < NC; x++) v += table[i * NC + x] * classPays[x];
      out[i] = v;
    }
    return out;
  });
}

// A pay table: rows [event, pays] top to bottom, and the row of each class.
function payTable(text) {
  const names = { 'jacks-or-better': '6-9-20-75-500', 'tens-or-better': 'tens:5-6-22-75-500', 'bonus-poker': '5-8-25-35-70-45-500' };
  // Object.hasOwn, not names[text]: "constructor" is a name too, of every object's prototype
  const named = Object.hasOwn(names, text) ? names[text] : null;
  if (/^[a-z-]+$/.test(text) && !named) throw new InvalidInput('unknown-paytable', `${text}`);
  const m = /^(?:(jacks|tens):)?([0-9]{1,7}(?:-[0-9]{1,7})*)$/.exec(named || text);
  if (!m) throw new InvalidInput('bad-paytable', `cannot read pay table ${text}`);
  let pays = m[2].split('-').map(Number);
  if (pays.length === 5 || pays.length === 7) pays = [1, 2, 3, 4, ...pays];
  if (pays.length !== 9 && pays.length !== 11) throw new InvalidInput('bad-paytable', `${pays.length} pays`);
  const tens = m[1] === 'tens';
  const pairEvent = tens ? 'tens-or-better' : 'jacks-or-better';
  const bonus = pays.length === 11;
  const events = ['royal-flush', 'straight-flush',
    ...(bonus ? ['four-aces', 'four-2s-3s-4s', 'four-5s-thru-ks'] : ['four-of-a-kind']),
    'full-house', 'flush', 'straight', 'three-of-a-kind', 'two-pair', pairEvent];
  const rows = events.map((e, i) => [e, pays[pays.length - 1 - i]]);
  rows.push(['all-other', 0]);
  const idx = (e) => events.indexOf(e) >= 0 ? events.indexOf(e) : events.length;
  const q = (e) => (bonus ? idx(e) : idx('four-of-a-kind'));
  const rowOf = [idx('royal-flush'), idx('straight-flush'), q('four-aces'), q('four-2s-3s-4s'),
    q('four-5s-thru-ks'), idx('full-house'), idx('flush'), idx('straight'), idx('three-of-a-kind'),
    idx('two-pair'), idx(pairEvent), tens ? idx(pairEvent) : idx('all-other'), idx('all-other'), idx('all-other')];
  const notation = pays.slice(4).join('-');
  return { rows, rowOf, classPays: rowOf.map((r) => rows[r][1]), notation: named ? named.replace('tens:', '') : text };
}

const gcd = (a, b) => { while (b) [a, b] = [b, a % b]; return a; };
function fraction(num, den) {
  const g = gcd(BigInt(num), BigInt(den));
  return `${BigInt(num) / g}/${BigInt(den) / g}`;
}
function decimal6(num, den) { // halves up
  const n = BigInt(num) * 1000000n * 2n + BigInt(den);
  const units = n / (2n * BigInt(den));
  const s = units.toString().padStart(7, '0');
  return `${s.slice(0, -6)}.${s.slice(-6)}`;
}

function bestHold(cards, paytable) {
  const table = payTable(paytable);
  const order = [0, 1, 2, 3, 4].sort((a, b) => cards[a] - cards[b]);
  const ascending = order.map((i) => cards[i]);
  const ranks = new Float64Array(32);
  subsetRanks(ascending, ranks);
  const counts = new Float64Array(NC);
  const holds = TIE_ORDER.map((m) => {
    let sorted = 0; // the same held cards as a mask over the ascending order
    for (let i = 0; i < 5; i++) if ((m >> order[i]) & 1) sorted |= 1 << i;
    classCounts(ascending, ranks, sorted, counts);
    const byRow = table.rows.map(() => 0);
    for (let x = 0; x < NC; x++) byRow[table.rowOf[x]] += counts[x];
    const draws = DRAWS[5 - POP[m]];
    const paysTotal = byRow.reduce((s, n, r) => s + n * table.rows[r][1], 0);
    return { m, draws, paysTotal, byRow };
  });
  // stable sort by exact value: a/b > c/d  <=>  a*d > c*b (integers below 2^53)
  holds.sort((x, y) => y.paysTotal * x.draws - x.paysTotal * y.draws);
  const held = (m) => [0, 1, 2, 3, 4].filter((i) => (m >> i) & 1).map((i) => i + 1);
  const best = holds[0];
  return {
    best: {
      held: held(best.m),
      ev: fraction(best.paysTotal, best.draws),
      counts: Object.fromEntries(table.rows.map(([e], r) => [e, best.byRow[r]])),
    },
    holds: holds.map((h) => ({
      held: held(h.m), draws: h.draws, pays_total: h.paysTotal,
      ev: fraction(h.paysTotal, h.draws), ev_decimal: decimal6(h.paysTotal, h.draws),
    })),
  };
}

// Every set of at most 4 cards in one index space: OFFSET[k] + its rank among k-sets.
const OFFSET = [0, 1, 53, 1379, 23479, 294204];

// --- suit classes ----------------------------------------------------------------------
// Renaming the suits of a deal renames those of all its draws alike and changes no final
// hand, so the deals of one suit class have the same hold values: one deal is solved for
// the class and weighted by its size (134,459 classes instead of 2,598,960 deals). A class
// is told by its four suits' rank sets, sorted; the deal standing for it is the one whose
// suits 0..3 hold those sets in ascending order.

const SUIT_PERMUTATIONS = [];
(function permute(prefix) {
  if (prefix.length === 4) { SUIT_PERMUTATIONS.push(prefix); return; }
  for (let s = 0; s < 4; s++) if (!prefix.includes(s)) permute([...prefix, s]);
}([]));

let SUIT_CLASSES = null;
function suitClasses() {
  if (SUIT_CLASSES) return SUIT_CLASSES;
  const cards = [];
  const weights = [];
  const sets = new Int32Array(4); // rank set of each suit, kept up to date as cards are chosen
  const deal = [0, 0, 0, 0, 0];
  // every deal, cards ascending, one card per level of recursion
  (function choose(depth, from) {
    for (let card = from; card <= 47 + depth; card++) {
      const suit = Math.floor(card / 13);
      const before = sets[suit];
      sets[suit] |= 1 << (card % 13);
      deal[depth] = card;
      if (depth < 4) choose(depth + 1, card + 1);
      else if (sets[0] <= sets[1] && sets[1] <= sets[2] && sets[2] <= sets[3]) {
        cards.push(...deal);
        weights.push(renamings(sets));
      }
      sets[suit] = before;
    }
  }(0, 0));
  SUIT_CLASSES = { cards: Uint8Array.from(cards), weights: Float64Array.from(weights) };
  return SUIT_CLASSES;
}

// How many deals a class stands for: the 24 renamings of the suits, less those that only
// swap suits holding the same rank set (sets sorted, so equal ones are adjacent; empty
// suits count too).
function renamings(sortedSets) {
  let same = 1;
  let run = 1;
  for (let s = 1; s < 4; s++) {
    run = sortedSets[s] === sortedSets[s - 1] ? run + 1 : 1;
    same *= run; // the product of each run's factorial, built up as the run grows
  }
  return 24 / same;
}

// The distinct deals of a class (cards ascending), from any one of them.
function classMembers(deal) {
  const members = new Map();
  for (const rename of SUIT_PERMUTATIONS) {
    const cards = deal.map((c) => rename[Math.floor(c / 13)] * 13 + (c % 13)).sort((x, y) => x - y);
    members.set(cards.join(','), cards);
  }
  return [...members.values()];
}

// --- one pay table: the best hold of a deal, and the draws of the holds chosen --------------

function tableSolver(table) {
  const { N } = engine();
  const P = new Float64Array(OFFSET[5]); // total pays over the hands holding each set
  perSetPays(table.classPays).forEach((values, k) => P.set(values, OFFSET[k]));
  // Per set S, the summed weights of the chosen holds' terms (-1)^(|S| - |hold|) N[S]:
  // multiplied out by class once at the end. Float64 sums of integers are exact below
  // 2^53: a coefficient sums at most 2,598,960 x 7,669,695 < 2^45 in magnitude.
  const coef = new Float64Array(OFFSET[5]);
  const byClass = new Float64Array(NC); // the 5-set terms: the deal's own class
  const ranks = new Float64Array(32);
  const index = new Int32Array(32);
  const value = new Float64Array(32); // per mask: total pays x share, comparable across sizes
  const counts = new Float64Array(NC);
  const other = new Float64Array(NC);
  let hand = null;
  let cls = -1;
  let chosen = -1; // the first best hold in TIE_ORDER

  // The 32 hold values of a deal (cards ascending), and its chosen hold.
  function play(deal) {
    hand = deal;
    subsetRanks(hand, ranks);
    for (let m = 0; m < 31; m++) { index[m] = OFFSET[POP[m]] + ranks[m]; value[m] = P[index[m]]; }
    cls = classOf(hand);
    value[31] = table.classPays[cls];
    for (let bit = 1; bit < 32; bit <<= 1) {
      for (let m = 0; m < 32; m++) if (!(m & bit)) value[m] -= value[m | bit];
    }
    let best = -1;
    for (let i = 0; i < 32; i++) {
      const m = TIE_ORDER[i];
      value[m] *= SHARE[m];
      if (value[m] > best) { best = value[m]; chosen = m; }
    }
  }

  function tied() {
    let ties = 0;
    for (let m = 0; m < 32; m++) if (value[m] === value[chosen]) ties++;
    return ties > 1;
  }

  // Whether the best holds end in different weighted counts: then the tie order, which
  // reads positions, decides the counts.
  function split() {
    classCounts(hand, ranks, chosen, counts);
    for (let m = 0; m < 32; m++) {
      if (m === chosen || value[m] !== value[chosen]) continue;
      classCounts(hand, ranks, m, other);
      for (let x = 0; x < NC; x++) if (other[x] * SHARE[m] !== counts[x] * SHARE[chosen]) return true;
    }
    return false;
  }

  // The chosen hold's draws, `weight` times: a term per set S containing the hold.
  function add(weight) {
    const w0 = weight * SHARE[chosen];
    for (let m = chosen; m < 32; m = (m + 1) | chosen) {
      const w = (POP[m] - POP[chosen]) & 1 ? -w0 : w0;
      if (m === 31) byClass[cls] += w;
      else coef[index[m]] += w;
    }
  }

  // Per class, the weighted draws of all the holds added, exactly.
  function finalCounts() {
    const exact = Array.from({ length: NC }, () => 0n);
    for (let k = 0; k < 5; k++) {
      for (let i = 0; i < BINOM[52][k]; i++) {
        const w = coef[OFFSET[k] + i];
        if (!w) continue;
        for (let x = 0; x < NC; x++) {
          const n = N[k][i * NC + x];
          if (n) exact[x] += BigInt(w) * BigInt(n);
        }
      }
    }
    for (let x = 0; x < NC; x++) exact[x] += BigInt(byClass[x]);
    return exact;
  }

  return { play, tied, split, add, finalCounts };
}

// Every deal's chosen hold, one deal per suit class, by class: the weighted counts and how
// many deals tie (and of those, split).
function solveTable(table) {
  const solver = tableSolver(table);
  const { cards, weights } = suitClasses();
  let tied = 0;
  let split = 0;
  const deal = [0, 0, 0, 0, 0];
  for (let i = 0; i < weights.length; i++) {
    for (let j = 0; j < 5; j++) deal[j] = cards[5 * i + j];
    solver.play(deal);
    if (solver.tied()) {
      tied += weights[i];
      if (solver.split()) {
        // renaming suits reorders the cards, so the tie order may pick different holds in
        // the class's deals: each of them is played on its own
        split += weights[i];
        for (const member of classMembers(deal)) { solver.play(member); solver.add(1); }
        continue;
      }
    }
    solver.add(weights[i]);
  }
  return { exact: solver.finalCounts(), tied, split };
}

function analysis(text) {
  const table = payTable(text);
  const { exact, tied, split } = solveTable(table);
  const standard = table.rows.map(() => 0n);
  for (let x = 0; x < NC; x++) standard[table.rowOf[x]] += exact[x];
  const STANDARD_TOTAL = 2598960n * BigInt(DEAL_WEIGHT);
  const divisor = standard.every((n) => n % 12n === 0n) ? 12n : 1n;
  let returnNum = 0n;
  const rows = {};
  table.rows.forEach(([event, p], r) => {
    const n = standard[r];
    returnNum += n * BigInt(p);
    rows[event] = {
      pays: p,
      combinations: Number(n / divisor),
      probability: fraction(n, STANDARD_TOTAL),
      probability_decimal: decimal6(n, STANDARD_TOTAL),
      return: fraction(n * BigInt(p), STANDARD_TOTAL),
      return_decimal: decimal6(n * BigInt(p), STANDARD_TOTAL),
    };
  });
  return {
    notation: table.notation,
    rows,
    total: Number(STANDARD_TOTAL / divisor),
    return: fraction(returnNum, STANDARD_TOTAL),
    return_decimal: decimal6(returnNum, STANDARD_TOTAL),
    deal_weight: DEAL_WEIGHT,
    divisor: Number(divisor),
    tied_deals: tied,
    split_deals: split,
  };
}

module.exports['videopoker.best_hold'] = { run: ({ cards, paytable }) => bestHold(cards, paytable) };
module.exports['videopoker.analysis'] = { run: ({ paytable }) => analysis(paytable) };
