'use strict';
// Tenhou's wall, ported from the code the document quotes
// (shared/seeds/002_f6528bc9046dd8c8.txt): Tenhou's published C code from tenhou.net/stat/rand/
// ("天凤牌山生成算法讲解": mtLocal, src, rnd, yama), the reference mt19937ar.c it cites
// ("参考资料"), and the verification steps of "玩家可以进行哪些检定,以及具体检定方法"
// (seed from the log, seat order from the UN tag, SHA-512 of seat order + seed hex).
//
// The C code works on raw memory: src and rnd are arrays of 32-bit words whose bytes are
// hashed and overwritten in place. Here they are Buffers of the same size, read and written
// little-endian, which is what those casts mean on Tenhou's x86 server.

const crypto = require('crypto');
const { InvalidInput } = require('../lib');

// ---------------------------------------------------------------------------------------
// mt19937ar.c (Makoto Matsumoto and Takuji Nishimura, 2002/1/26), as a class like the
// mtLocal object of Tenhou's code. Math.imul keeps the 32-bit products exact (a plain *
// would exceed 2^53 and lose the low bits); >>> 0 keeps every word unsigned.

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;

class MT19937 {
  constructor() {
    this.mt = new Uint32Array(N);
    this.mti = N + 1; // mti==N+1 means mt[N] is not initialized
  }

  init_genrand(s) {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (this.mti = 1; this.mti < N; this.mti++) {
      const prev = mt[this.mti - 1];
      mt[this.mti] = (Math.imul(1812433253, (prev ^ (prev >>> 30)) >>> 0) + this.mti) >>> 0;
    }
  }

  init_by_array(init_key, key_length) {
    const mt = this.mt;
    this.init_genrand(19650218);
    let i = 1;
    let j = 0;
    let k = N > key_length ? N : key_length;
    for (; k; k--) {
      const prev = mt[i - 1];
      mt[i] = ((mt[i] ^ Math.imul((prev ^ (prev >>> 30)) >>> 0, 1664525)) >>> 0) + init_key[j] + j; // non linear
      mt[i] >>>= 0; // for WORDSIZE > 32 machines (a Uint32Array stores mod 2^32 anyway)
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= key_length) j = 0;
    }
    for (k = N - 1; k; k--) {
      const prev = mt[i - 1];
      mt[i] = ((mt[i] ^ Math.imul((prev ^ (prev >>> 30)) >>> 0, 1566083941)) >>> 0) - i; // non linear
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000; // MSB is 1; assuring non-zero initial array
  }

  genrand_int32() {
    const mt = this.mt;
    const mag01 = [0x0, MATRIX_A];
    let y;
    if (this.mti >= N) {
      // generate N words at one time
      if (this.mti === N + 1) this.init_genrand(5489); // a default initial seed is used
      let kk;
      for (kk = 0; kk < N - M; kk++) {
        y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
        mt[kk] = mt[kk + M] ^ (y >>> 1) ^ mag01[y & 0x1];
      }
      for (; kk < N - 1; kk++) {
        y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
        mt[kk] = mt[kk + (M - N)] ^ (y >>> 1) ^ mag01[y & 0x1];
      }
      y = (mt[N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
      mt[N - 1] = mt[M - 1] ^ (y >>> 1) ^ mag01[y & 0x1];
      this.mti = 0;
    }
    y = mt[this.mti++];
    // Tempering
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }
}

// ---------------------------------------------------------------------------------------
// Input checks (the spec's error codes). Every type, range, length and enum of the inputs
// (words of 32 bits, 144 or 288 of them, players 3 or 4, tiles 0-135, dealers 0-3, 1 to 100
// hands) is checked before run() by inputs.js, against the spec's schema; only what a
// schema cannot say is checked here.

const PREFIX = 'mt19937ar-sha512-n288-base64,';
const SEED_BYTES = 2496;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

// "把那一大堆东西复制出来,进行base64解码" - Buffer.from(..., 'base64') is lenient (it takes
// '-' and '_' and skips junk), so the text is checked first.
function decodeSeed(text) {
  if (!BASE64.test(text)) throw new InvalidInput('bad-base64', 'seed is not strict standard base64');
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length !== SEED_BYTES) {
    throw new InvalidInput('wrong-length', `seed is ${bytes.length} bytes, not ${SEED_BYTES}`);
  }
  return bytes;
}

// "result.append(int.from_bytes(seed_bytes[i*4:i*4+4], byteorder='little'))"
function seedWords(bytes) {
  const words = [];
  for (let i = 0; i < bytes.length; i += 4) words.push(bytes.readUInt32LE(i));
  return words;
}

// ---------------------------------------------------------------------------------------
// Tenhou's code for one hand (tenhou.net/stat/rand/, as the document quotes it):
//
//   unsigned long rnd[SHA512_DIGEST_SIZE/sizeof(unsigned long)*9]; // 135+2以上を確保
//   unsigned long src[sizeof(rnd)/sizeof(*rnd)*2]; // 1024bit単位で512bitへhash
//   for(i=0;i<sizeof(src)/sizeof(*src);++i) src[i]=mtLocal.genrand_int32();
//   for(i=0;i<sizeof(rnd)/SHA512_DIGEST_SIZE;++i){
//     SHA512_Init(&ctx);
//     SHA512_Update(&ctx,(unsigned char*)src+i*SHA512_DIGEST_SIZE*2,SHA512_DIGEST_SIZE*2);
//     SHA512_Final((unsigned char*)rnd+i*SHA512_DIGEST_SIZE,&ctx);
//   }
//   BYTE yama[136]; // サンマは108
//   for(i=0;i<136;++i) yama[i]=i;
//   for(i=0;i<136-1;++i) swap(yama[i],yama[i + (rnd[i]%(136-i))]); // 1/2^32以下の誤差は許容
//   int dice0=rnd[135]%6;
//   int dice1=rnd[136]%6;
//
// with 32-bit words (the Windows build; on LP64 unsigned long is 8 bytes and the same source
// hashes other bytes).

const WORD = 4; // sizeof(unsigned long) on the build the logs come from
const SHA512_DIGEST_SIZE = 64;
const RND_WORDS = (SHA512_DIGEST_SIZE / WORD) * 9; // 144
const SRC_WORDS = RND_WORDS * 2; // 288

function hashSrc(src) {
  const srcBytes = Buffer.alloc(SRC_WORDS * WORD);
  src.forEach((word, i) => srcBytes.writeUInt32LE(word, i * WORD));
  const rndBytes = Buffer.alloc(RND_WORDS * WORD);
  const digests = [];
  for (let i = 0; i < rndBytes.length / SHA512_DIGEST_SIZE; ++i) {
    const start = i * SHA512_DIGEST_SIZE * 2;
    const digest = crypto
      .createHash('sha512')
      .update(srcBytes.subarray(start, start + SHA512_DIGEST_SIZE * 2))
      .digest();
    digest.copy(rndBytes, i * SHA512_DIGEST_SIZE);
    digests.push(digest.toString('hex'));
  }
  const rnd = [];
  for (let i = 0; i < RND_WORDS; i++) rnd.push(rndBytes.readUInt32LE(i * WORD));
  return { rnd, digests };
}

const wallSize = (players) => (players === 3 ? 108 : 136); // "三麻把所有136替换为108"

function shuffleYama(rnd, size) {
  const yama = [];
  for (let i = 0; i < size; ++i) yama[i] = i;
  for (let i = 0; i < size - 1; ++i) {
    const j = i + (rnd[i] % (size - i));
    const t = yama[i];
    yama[i] = yama[j];
    yama[j] = t;
  }
  return yama;
}

const rollDice = (rnd) => [rnd[135] % 6, rnd[136] % 6];

// ---------------------------------------------------------------------------------------
// Reading the wall as the logs show it: the deal starts at the end (the dice do not move
// it), 4-4-4-1 from the dealer round the table; yama[0..13] is the dead wall.

function dealHaipai(yama, dealer, players) {
  const hands = [[], [], [], []];
  let p = yama.length - 1;
  for (const block of [4, 4, 4, 1]) {
    for (let k = 0; k < players; k++) {
      const seat = (dealer + k) % players;
      for (let t = 0; t < block; t++) hands[seat].push(yama[p--]);
    }
  }
  return hands;
}

// The schema allows seats 0-3; three players have no seat 3.
function checkDealer(dealer, players) {
  if (dealer >= players) {
    throw new InvalidInput('bad-dealer', `dealer ${dealer} is not a seat of ${players} players`);
  }
}

function deal({ yama, dealer }) {
  const players = yama.length === 136 ? 4 : yama.length === 108 ? 3 : 0;
  if (!players) throw new InvalidInput('wrong-length', `yama has ${yama.length} tiles`);
  const seen = new Set(yama);
  if (seen.size !== yama.length || !yama.every((t) => t < yama.length)) {
    throw new InvalidInput('bad-wall', 'yama must hold each tile id once');
  }
  checkDealer(dealer, players);
  const draws = [];
  for (let p = yama.length - 1 - 13 * players; p >= 14; p--) draws.push(yama[p]);
  return {
    haipai: dealHaipai(yama, dealer, players),
    dora_indicators: [5, 7, 9, 11, 13].map((i) => yama[i]),
    ura_indicators: [4, 6, 8, 10, 12].map((i) => yama[i]),
    rinshan: [1, 0, 3, 2].map((i) => yama[i]),
    draws,
  };
}

// "for nKyoku in range(10): ... src = [random.getrandbits(32) for _ in range(288)]": one
// generator for the whole game, 288 outputs per hand, every hand.
function game({ seed, dealers, players = 4 }) {
  const size = wallSize(players);
  dealers.forEach((dealer) => checkDealer(dealer, players));
  const key = seedWords(decodeSeed(seed));
  const mtLocal = new MT19937();
  mtLocal.init_by_array(key, key.length);
  const out = { dice: [], dora_indicators: [], haipai: [], yama: [] };
  for (const dealer of dealers) {
    const src = [];
    for (let i = 0; i < SRC_WORDS; ++i) src[i] = mtLocal.genrand_int32();
    const { rnd } = hashSrc(src);
    const yama = shuffleYama(rnd, size);
    out.dice.push(rollDice(rnd));
    out.dora_indicators.push(yama[5]);
    out.haipai.push(dealHaipai(yama, dealer, players));
    out.yama.push(yama);
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Tile names: haiDisp[yama[i] / 4]; three players "0为1万,1为9万,2-10为1-9筒,11-19为1-9索,
// 20-26为东南西北白发中"; "如果一张5p5s除以4的余数为0,且规则有赤,则为赤牌".

const haiDisp = [
  '1m', '2m', '3m', '4m', '5m', '6m', '7m', '8m', '9m',
  '1p', '2p', '3p', '4p', '5p', '6p', '7p', '8p', '9p',
  '1s', '2s', '3s', '4s', '5s', '6s', '7s', '8s', '9s',
  '东', '南', '西', '北', '白', '发', '中',
];

function tile({ tile: id, players = 4, red = true }) {
  const size = wallSize(players);
  if (id >= size) {
    throw new InvalidInput('tile-out-of-range', `tile ${id} is not 0..${size - 1}`);
  }
  const index = Math.floor(id / 4);
  const kind = players === 4 ? index : index === 0 ? 0 : index === 1 ? 8 : index + 7;
  const suited = kind < 27;
  const isRed = red && suited && kind % 9 === 4 && id % 4 === 0;
  const name = suited ? `${(kind % 9) + 1}${'mps'[Math.floor(kind / 9)]}` : `${kind - 26}z`;
  let code;
  if (isRed) code = 51 + Math.floor(kind / 9);
  else if (suited) code = (Math.floor(kind / 9) + 1) * 10 + (kind % 9) + 1;
  else code = 41 + kind - 27;
  return { kind, name, red: isRed, display: haiDisp[kind], tenhou6: code };
}

// ---------------------------------------------------------------------------------------
// One hand's wall, as wall-only libraries and log analysers give it: hand k (0-based, the
// log's INIT tags in order) is the k-th 288 outputs of the game's one generator. Listed in
// draw order, item p is yama[N-1-p] (the deal, then the draws, then the dead wall
// yama[13]..yama[0]); in yama order, as the document prints it, the last item is drawn first.

function nthWall(seed, hand, players) {
  const size = wallSize(players);
  const key = seedWords(decodeSeed(seed));
  const mtLocal = new MT19937();
  mtLocal.init_by_array(key, key.length);
  for (let i = 0; i < hand * SRC_WORDS; ++i) mtLocal.genrand_int32(); // hands 0..k-1
  const src = [];
  for (let i = 0; i < SRC_WORDS; ++i) src[i] = mtLocal.genrand_int32();
  return shuffleYama(hashSrc(src).rnd, size);
}

function wallTiles({ seed, hand, players = 4, red = true }, variant) {
  const yama = nthWall(seed, hand, players);
  const ordered = variant === 'yama-order' ? yama : yama.slice().reverse();
  const tiles = [];
  const tenhou6 = [];
  for (const id of ordered) {
    const t = tile({ tile: id, players, red });
    tiles.push(t.red ? `0${t.name[1]}` : t.name); // a red five is 0m, 0p, 0s
    tenhou6.push(t.tenhou6);
  }
  return { tiles, tenhou6 };
}

// ---------------------------------------------------------------------------------------
// The seat order: "对玩家名进行url unquote ... 将名字进行字典序升序排序 ... “xyzw”=“1203”".

function decodeName(encoded) {
  if (/%(?![0-9A-Fa-f]{2})/.test(encoded)) {
    throw new InvalidInput('bad-name', `${encoded} has a malformed % escape`);
  }
  try {
    return decodeURIComponent(encoded); // '+' stays '+'; invalid UTF-8 throws URIError
  } catch (error) {
    throw new InvalidInput('bad-name', `${encoded} is not percent-encoded UTF-8`);
  }
}

// Python's sorted() compares code points; JavaScript's < on strings compares UTF-16 code
// units, which orders characters above U+FFFF before U+E000-U+FFFF. Compare code points.
function compareCodePoints(a, b) {
  const x = Array.from(a, (c) => c.codePointAt(0));
  const y = Array.from(b, (c) => c.codePointAt(0));
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i] - y[i];
  }
  return x.length - y.length;
}

function seatOrder({ names }) {
  const players = names[3] === '' ? 3 : 4;
  if (names.slice(0, players).some((name) => name === '')) {
    throw new InvalidInput('wrong-player-count', 'only n3 may be empty');
  }
  const decoded = names.slice(0, players).map(decodeName);
  // Player numbers: the names in ascending order; equal names in seat order.
  const seats = decoded.map((_, seat) => seat);
  seats.sort((s, t) => compareCodePoints(decoded[s], decoded[t]) || s - t);
  const numbers = [];
  seats.forEach((seat, number) => {
    numbers[seat] = number;
  });
  return {
    decoded,
    sorted: seats.map((seat) => decoded[seat]),
    seat_order: numbers.join('') + '3'.repeat(4 - players),
  };
}

// "source = seat + seed; print(hashlib.sha512(source).hexdigest())", the seed's hex either
// with every byte (Tenhou's "624*8(乱数種)") or as the document's hex(int.from_bytes(...)).
function commitment({ seat_order: seats, seed }, variant) {
  if (!/^[0-3]{4}$/.test(seats) || new Set(seats).size !== 4) {
    throw new InvalidInput('bad-seat-order', `seat order ${seats}`);
  }
  let text = decodeSeed(seed).toString('hex');
  if (variant === 'document-int-hex') text = text.replace(/^0+(?=.)/, '');
  const hash = crypto.createHash('sha512').update(Buffer.from(seats + text, 'ascii')).digest('hex');
  return { source_length: seats.length + text.length, hash };
}

// ---------------------------------------------------------------------------------------

module.exports = {
  'tenhou.seed': {
    run: ({ shuffle }) => {
      if (!shuffle.startsWith(PREFIX)) throw new InvalidInput('wrong-prefix', 'not a SHUFFLE seed');
      return { words: seedWords(decodeSeed(shuffle.slice(PREFIX.length))) };
    },
  },
  'tenhou.mt19937': {
    run: ({ key, count, skip = 0 }) => {
      const mt = new MT19937();
      mt.init_by_array(key, key.length);
      for (let i = 0; i < skip; i++) mt.genrand_int32();
      const outputs = [];
      for (let i = 0; i < count; i++) outputs.push(mt.genrand_int32());
      return { outputs };
    },
  },
  'tenhou.rnd': {
    run: ({ src }) => {
      const { rnd, digests } = hashSrc(src);
      return { digests, rnd };
    },
  },
  'tenhou.shuffle': {
    run: ({ rnd, players = 4 }) => {
      return { yama: shuffleYama(rnd, wallSize(players)) };
    },
  },
  'tenhou.dice': {
    run: ({ rnd }) => {
      const dice = rollDice(rnd);
      return { dice, pips: dice.map((d) => d + 1) };
    },
  },
  'tenhou.deal': { run: deal },
  'tenhou.game': { run: game },
  'tenhou.hand_wall': {
    run: ({ seed, hand, players = 4 }) => ({ yama: nthWall(seed, hand, players) }),
  },
  'tenhou.wall_tiles': { variants: ['draw-order', 'yama-order'], run: wallTiles },
  'tenhou.tile': { run: tile },
  'tenhou.seat_order': { run: seatOrder },
  'tenhou.commitment': { variants: ['bytes-hex', 'document-int-hex'], run: commitment },
};
