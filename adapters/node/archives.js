'use strict';
// nardy.archive's archive readers (spec/nardy/archive.yaml): a ZIP (ZipCrypto or WinZip AES)
// or a 7z (7zAES) holding one file, opened with its password. ZIP is Node's own zlib and
// crypto; 7z is crypto for 7zAES and the vendored xz-compat for LZMA2 and LZMA
// (vendor/PROVENANCE.md). Written from the formats' own documents, not from the reference:
// PKWARE's APPNOTE.TXT (sections 4.3 and 6.1), WinZip's AE-1/AE-2 note, 7-Zip's 7zFormat.txt.
// Each function throws InvalidInput with the spec's code; the order of the checks is the
// spec's decision error-order.

const crypto = require('crypto');
const path = require('path');
const zlib = require('zlib');
const { InvalidInput } = require('./lib');

const MAX_MEMBER_BYTES = 1 << 20; // decision member-bound
const SEVEN_ZIP_SIGNATURE = Buffer.from('377abcaf271c', 'hex');

const corrupt = (what) => new InvalidInput('corrupt-archive', `the archive is damaged: ${what}`);
const wrongPassword = (what) => new InvalidInput('wrong-password', `the password does not open the archive: ${what}`);

// --- CRC-32 (ZIP's and 7z's, and ZipCrypto's key schedule) ----------------------------------

const CRC_TABLE = new Int32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c;
});
const crcByte = (crc, byte) => (crc >>> 8) ^ CRC_TABLE[(crc ^ byte) & 0xff];
function crc32(bytes) {
  let crc = -1;
  for (const byte of bytes) crc = crcByte(crc, byte);
  return (crc ^ -1) >>> 0;
}

// A reader over a buffer whose every overrun is a damaged archive, not a crash.
function need(buffer, offset, length, what) {
  if (offset < 0 || length < 0 || offset + length > buffer.length) throw corrupt(`${what} runs past the end`);
}

// --- ZIP ----------------------------------------------------------------------------------

const ZIP_METHODS = { 0: 'stored', 8: 'deflate' };
const AES_STRENGTHS = { 1: ['aes-128', 16, 8], 2: ['aes-192', 24, 12], 3: ['aes-256', 32, 16] };

function endOfCentralDirectory(data) {
  const lowest = Math.max(0, data.length - 22 - 0xffff);
  for (let at = data.length - 22; at >= lowest; at -= 1) {
    if (data.readUInt32LE(at) === 0x06054b50) return at;
  }
  throw corrupt('no end of central directory');
}

function aesExtra(extra) {
  for (let at = 0; at + 4 <= extra.length;) {
    const id = extra.readUInt16LE(at);
    const size = extra.readUInt16LE(at + 2);
    if (id === 0x9901 && size >= 7 && at + 4 + size <= extra.length) {
      return { version: extra.readUInt16LE(at + 4), strength: extra[at + 8], method: extra.readUInt16LE(at + 9) };
    }
    at += 4 + size;
  }
  return null;
}

function zipEntries(data) {
  const end = endOfCentralDirectory(data);
  const count = data.readUInt16LE(end + 10);
  let at = data.readUInt32LE(end + 16);
  const entries = [];
  for (let i = 0; i < count; i += 1) {
    need(data, at, 46, 'the central directory');
    if (data.readUInt32LE(at) !== 0x02014b50) throw corrupt('a central directory entry has no signature');
    const nameLength = data.readUInt16LE(at + 28);
    const extraLength = data.readUInt16LE(at + 30);
    const commentLength = data.readUInt16LE(at + 32);
    need(data, at + 46, nameLength + extraLength + commentLength, 'a central directory entry');
    const name = data.toString('utf8', at + 46, at + 46 + nameLength);
    entries.push({
      name,
      flags: data.readUInt16LE(at + 8),
      method: data.readUInt16LE(at + 10),
      time: data.readUInt16LE(at + 12),
      crc: data.readUInt32LE(at + 16),
      packedSize: data.readUInt32LE(at + 20),
      size: data.readUInt32LE(at + 24),
      localOffset: data.readUInt32LE(at + 42),
      aes: aesExtra(data.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength)),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function zipMember(entry) {
  const strong = (entry.flags & 0x40) !== 0;
  const method = entry.aes && entry.method === 99 ? entry.aes.method : entry.method;
  let encryption = strong ? 'pkware-strong' : 'zipcrypto';
  if (entry.aes) encryption = AES_STRENGTHS[entry.aes.strength] ? AES_STRENGTHS[entry.aes.strength][0] : 'aes-unknown';
  return {
    name: entry.name,
    size: entry.size,
    encrypted: (entry.flags & 1) !== 0,
    encryption,
    method: ZIP_METHODS[method] || `zip-method-${method}`,
    supported: method in ZIP_METHODS && !strong && (!entry.aes || entry.aes.strength in AES_STRENGTHS),
    entry,
  };
}

function readZip(data) {
  const members = zipEntries(data).filter((entry) => !entry.name.endsWith('/')).map(zipMember);
  return { format: 'zip', members };
}

function packedData(data, entry) {
  const at = entry.localOffset;
  need(data, at, 30, 'a local header');
  if (data.readUInt32LE(at) !== 0x04034b50) throw corrupt(`${entry.name}: no local header signature`);
  const start = at + 30 + data.readUInt16LE(at + 26) + data.readUInt16LE(at + 28);
  need(data, start, entry.packedSize, `${entry.name}'s data`);
  return data.subarray(start, start + entry.packedSize);
}

// PKWARE's traditional encryption (APPNOTE 6.1): three keys updated by every plain byte.
function zipCryptoDecrypt(password, packed, checkByte, name) {
  const keys = [0x12345678, 0x23456789, 0x34567890];
  const update = (byte) => {
    keys[0] = crcByte(keys[0], byte);
    keys[1] = (Math.imul((keys[1] + (keys[0] & 0xff)) >>> 0, 134775813) + 1) >>> 0;
    keys[2] = crcByte(keys[2], keys[1] >>> 24);
  };
  for (const byte of Buffer.from(password, 'latin1')) update(byte);
  if (packed.length < 12) throw corrupt(`${name}: shorter than ZipCrypto's 12-byte header`);
  const plain = Buffer.alloc(packed.length);
  for (let i = 0; i < packed.length; i += 1) {
    const temp = (keys[2] | 2) & 0xffff;
    plain[i] = packed[i] ^ ((Math.imul(temp, temp ^ 1) >>> 8) & 0xff);
    update(plain[i]);
  }
  if (plain[11] !== checkByte) throw wrongPassword(`${name}: ZipCrypto's check byte differs`);
  return plain.subarray(12);
}

// WinZip AES (AE-1, AE-2): PBKDF2-HMAC-SHA1, 1,000 rounds; AES in CTR mode with a
// little-endian counter from 1; HMAC-SHA1 of the ciphertext, its first 10 bytes stored.
function winZipAesDecrypt(password, packed, aes, name) {
  const [, keyLength, saltLength] = AES_STRENGTHS[aes.strength];
  if (packed.length < saltLength + 2 + 10) throw corrupt(`${name}: shorter than its AES salt and code`);
  const salt = packed.subarray(0, saltLength);
  const keys = crypto.pbkdf2Sync(Buffer.from(password, 'latin1'), salt, 1000, 2 * keyLength + 2, 'sha1');
  if (!keys.subarray(2 * keyLength).equals(packed.subarray(saltLength, saltLength + 2))) {
    throw wrongPassword(`${name}: the AES password verifier differs`);
  }
  const cipherText = packed.subarray(saltLength + 2, packed.length - 10);
  const code = crypto.createHmac('sha1', keys.subarray(keyLength, 2 * keyLength)).update(cipherText).digest();
  if (!code.subarray(0, 10).equals(packed.subarray(packed.length - 10))) throw corrupt(`${name}: the authentication code fails`);
  const blocks = Math.ceil(cipherText.length / 16);
  const counters = Buffer.alloc(blocks * 16);
  for (let i = 0; i < blocks; i += 1) counters.writeUInt32LE((i + 1) >>> 0, i * 16); // < 2^32 blocks here
  const cipher = crypto.createCipheriv(`aes-${keyLength * 8}-ecb`, keys.subarray(0, keyLength), null).setAutoPadding(false);
  const stream = Buffer.concat([cipher.update(counters), cipher.final()]);
  const plain = Buffer.alloc(cipherText.length);
  for (let i = 0; i < cipherText.length; i += 1) plain[i] = cipherText[i] ^ stream[i];
  return plain;
}

function unpackZip(data, member, password) {
  const { entry } = member;
  const packed = packedData(data, entry);
  let plain;
  if (entry.aes) {
    plain = winZipAesDecrypt(password, packed, entry.aes, entry.name);
  } else {
    const checkByte = entry.flags & 0x8 ? (entry.time >>> 8) & 0xff : entry.crc >>> 24;
    plain = zipCryptoDecrypt(password, packed, checkByte, entry.name);
  }
  let bytes = plain;
  if (member.method === 'deflate') {
    try {
      // at most one byte past the declared size (decision member-bound): that byte is already wrong
      bytes = zlib.inflateRawSync(plain, { maxOutputLength: entry.size + 1 });
    } catch (error) {
      throw corrupt(`${entry.name}: ${error.message}`);
    }
  }
  if (bytes.length !== entry.size) throw corrupt(`${entry.name} holds ${bytes.length} bytes, its header says ${entry.size}`);
  const crcKept = !entry.aes || entry.aes.version === 1; // AE-2 stores no CRC
  if (crcKept && crc32(bytes) !== entry.crc) throw corrupt(`${entry.name}: bad CRC-32`);
  return bytes;
}

// --- 7z -------------------------------------------------------------------------------------

const SEVEN_ZIP_AES = '06f10701';
const SEVEN_ZIP_METHODS = { 21: 'lzma2', '030101': 'lzma', '00': 'copy' };
const K = {
  end: 0x00, header: 0x01, archiveProperties: 0x02, additionalStreams: 0x03, mainStreams: 0x04,
  files: 0x05, packInfo: 0x06, unpackInfo: 0x07, subStreams: 0x08, size: 0x09, crc: 0x0a,
  folder: 0x0b, codersUnpackSize: 0x0c, numUnpackStream: 0x0d, emptyStream: 0x0e,
  emptyFile: 0x0f, name: 0x11, attributes: 0x15, encodedHeader: 0x17, dummy: 0x19,
};

// A cursor over a 7z header (7zFormat.txt's types: BYTE, UINT64 in its variable-length form).
class Cursor {
  constructor(buffer) {
    this.buffer = buffer;
    this.at = 0;
  }

  byte() {
    need(this.buffer, this.at, 1, 'the 7z header');
    this.at += 1;
    return this.buffer[this.at - 1];
  }

  bytes(length) {
    need(this.buffer, this.at, length, 'the 7z header');
    this.at += length;
    return this.buffer.subarray(this.at - length, this.at);
  }

  number() {
    const first = this.byte();
    let mask = 0x80;
    let value = 0;
    for (let i = 0; i < 8; i += 1) {
      if ((first & mask) === 0) return value + (first & (mask - 1)) * 2 ** (8 * i);
      value += this.byte() * 2 ** (8 * i);
      mask >>>= 1;
    }
    return value;
  }

  bits(count) {
    const out = [];
    let byte = 0;
    for (let i = 0; i < count; i += 1) {
      if (i % 8 === 0) byte = this.byte();
      out.push((byte & (0x80 >>> (i % 8))) !== 0);
    }
    return out;
  }

  definedBits(count) {
    return this.byte() ? new Array(count).fill(true) : this.bits(count);
  }

  digests(count) {
    return this.definedBits(count).map((defined) => (defined ? this.bytes(4).readUInt32LE(0) : null));
  }

  expect(id) {
    if (this.byte() !== id) throw corrupt(`the 7z header lacks property ${id}`);
  }
}

function readFolder(cursor) {
  const coders = [];
  const numCoders = cursor.number();
  for (let i = 0; i < numCoders; i += 1) {
    const flags = cursor.byte();
    if (flags & 0x80) throw corrupt('a 7z coder with alternative methods');
    const id = cursor.bytes(flags & 0x0f).toString('hex');
    const inputs = flags & 0x10 ? cursor.number() : 1;
    const outputs = flags & 0x10 ? cursor.number() : 1;
    const properties = flags & 0x20 ? Buffer.from(cursor.bytes(cursor.number())) : Buffer.alloc(0);
    coders.push({ id, inputs, outputs, properties });
  }
  const totalOut = coders.reduce((sum, coder) => sum + coder.outputs, 0);
  const totalIn = coders.reduce((sum, coder) => sum + coder.inputs, 0);
  const bindPairs = [];
  for (let i = 0; i < totalOut - 1; i += 1) bindPairs.push({ input: cursor.number(), output: cursor.number() });
  const packedStreams = [];
  const numPacked = totalIn - bindPairs.length;
  if (numPacked === 1) {
    for (let i = 0; i < totalIn; i += 1) if (!bindPairs.some((pair) => pair.input === i)) packedStreams.push(i);
  } else {
    for (let i = 0; i < numPacked; i += 1) packedStreams.push(cursor.number());
  }
  return { coders, bindPairs, packedStreams, totalOut, unpackSizes: [], crc: null };
}

function readStreamsInfo(cursor) {
  const info = { packPos: 0, packSizes: [], folders: [], streams: null };
  let id = cursor.byte();
  if (id === K.packInfo) {
    info.packPos = cursor.number();
    const count = cursor.number();
    for (id = cursor.byte(); id !== K.end; id = cursor.byte()) {
      if (id === K.size) for (let i = 0; i < count; i += 1) info.packSizes.push(cursor.number());
      else if (id === K.crc) cursor.digests(count);
      else throw corrupt(`unexpected property ${id} in the 7z pack info`);
    }
    id = cursor.byte();
  }
  if (id === K.unpackInfo) {
    cursor.expect(K.folder);
    const count = cursor.number();
    if (cursor.byte() !== 0) throw corrupt('external 7z folders');
    for (let i = 0; i < count; i += 1) info.folders.push(readFolder(cursor));
    cursor.expect(K.codersUnpackSize);
    for (const folder of info.folders) for (let i = 0; i < folder.totalOut; i += 1) folder.unpackSizes.push(cursor.number());
    for (id = cursor.byte(); id !== K.end; id = cursor.byte()) {
      if (id !== K.crc) throw corrupt(`unexpected property ${id} in the 7z unpack info`);
      cursor.digests(count).forEach((crc, i) => { info.folders[i].crc = crc; });
    }
    id = cursor.byte();
  }
  info.streams = info.folders.map((folder) => ({ count: 1, sizes: [unpackSize(folder)], crcs: [folder.crc] }));
  if (id === K.subStreams) {
    id = cursor.byte();
    if (id === K.numUnpackStream) {
      for (const stream of info.streams) stream.count = cursor.number();
      id = cursor.byte();
    }
    info.folders.forEach((folder, i) => {
      const stream = info.streams[i];
      stream.sizes = [];
      stream.crcs = new Array(stream.count).fill(null);
      if (stream.count === 1 && folder.crc !== null) stream.crcs[0] = folder.crc;
    });
    if (id === K.size) {
      info.folders.forEach((folder, i) => {
        const stream = info.streams[i];
        let sum = 0;
        for (let j = 1; j < stream.count; j += 1) {
          const size = cursor.number();
          stream.sizes.push(size);
          sum += size;
        }
        if (stream.count > 0) stream.sizes.push(unpackSize(folder) - sum);
      });
      id = cursor.byte();
    } else {
      info.folders.forEach((folder, i) => {
        if (info.streams[i].count === 1) info.streams[i].sizes = [unpackSize(folder)];
      });
    }
    if (id === K.crc) {
      const unknown = info.streams.flatMap((stream) => stream.crcs.map((crc, j) => [stream, j, crc]).filter(([, , crc]) => crc === null));
      cursor.digests(unknown.length).forEach((crc, k) => { unknown[k][0].crcs[unknown[k][1]] = crc; });
      id = cursor.byte();
    }
    if (id !== K.end) throw corrupt(`unexpected property ${id} in the 7z substreams info`);
    id = cursor.byte();
  }
  if (id !== K.end) throw corrupt(`unexpected property ${id} in the 7z streams info`);
  return info;
}

// The folder's output: the one out stream no bind pair consumes.
function unpackSize(folder) {
  for (let i = folder.totalOut - 1; i >= 0; i -= 1) {
    if (!folder.bindPairs.some((pair) => pair.output === i)) return folder.unpackSizes[i];
  }
  throw corrupt('a 7z folder has no output');
}

// (encrypted, method, supported), as the spec's check_member step names them.
function folderMethod(folder) {
  const ids = folder.coders.map((coder) => coder.id);
  const others = ids.filter((id) => id !== SEVEN_ZIP_AES);
  const simple = folder.coders.every((coder) => coder.inputs === 1 && coder.outputs === 1);
  const supported = simple && others.length === 1 && others[0] in SEVEN_ZIP_METHODS;
  return {
    encrypted: ids.includes(SEVEN_ZIP_AES),
    method: supported ? SEVEN_ZIP_METHODS[others[0]] : others.map((id) => `7z-method-${id}`).join('+'),
    supported,
  };
}

// 7zAES: key = SHA-256 over 2^power rounds of salt, password (UTF-16LE), 8-byte round number.
function sevenZipKey(properties, password) {
  if (properties.length < 1) throw corrupt('7zAES without properties');
  const first = properties[0];
  const power = first & 0x3f;
  let salt = Buffer.alloc(0);
  let iv = Buffer.alloc(16);
  if (first & 0xc0) {
    if (properties.length < 2) throw corrupt('7zAES properties cut short');
    const saltSize = ((first >>> 7) & 1) + (properties[1] >>> 4);
    const ivSize = ((first >>> 6) & 1) + (properties[1] & 0x0f);
    if (properties.length < 2 + saltSize + ivSize) throw corrupt('7zAES properties cut short');
    salt = properties.subarray(2, 2 + saltSize);
    iv = Buffer.concat([properties.subarray(2 + saltSize, 2 + saltSize + ivSize), Buffer.alloc(16)]).subarray(0, 16);
  }
  const secret = Buffer.from(password, 'utf16le');
  if (power === 0x3f) return { key: Buffer.concat([salt, secret, Buffer.alloc(32)]).subarray(0, 32), iv };
  if (power > 24) throw new InvalidInput('unsupported-method', `7zAES with 2^${power} rounds`);
  const round = Buffer.concat([salt, secret, Buffer.alloc(8)]);
  const rounds = 2 ** power;
  const perChunk = Math.max(1, Math.floor((1 << 20) / round.length));
  const hash = crypto.createHash('sha256');
  for (let done = 0; done < rounds;) {
    const n = Math.min(perChunk, rounds - done);
    const chunk = Buffer.alloc(n * round.length);
    for (let i = 0; i < n; i += 1) {
      round.copy(chunk, i * round.length);
      chunk.writeUInt32LE((done + i) >>> 0, i * round.length + salt.length + secret.length);
    }
    hash.update(chunk);
    done += n;
  }
  return { key: hash.digest(), iv };
}

function runCoder(coder, input, outSize, password) {
  if (coder.id === SEVEN_ZIP_AES) {
    const { key, iv } = sevenZipKey(coder.properties, password);
    if (input.length % 16 !== 0) throw new Error('7zAES data is not whole blocks');
    const decipher = crypto.createDecipheriv('aes-256-cbc', key, iv).setAutoPadding(false);
    return Buffer.concat([decipher.update(input), decipher.final()]);
  }
  if (coder.id === '00') return input.subarray(0, outSize);
  // the vendored xz-compat decoders (vendor/PROVENANCE.md), loaded on first use
  const vendor = path.join(__dirname, 'vendor', 'node_modules', 'xz-compat', 'dist', 'cjs', 'lzma', 'sync');
  if (coder.id === '21') return require(path.join(vendor, 'Lzma2Decoder.js')).decodeLzma2(input, coder.properties, outSize);
  return require(path.join(vendor, 'LzmaDecoder.js')).decodeLzma(input, coder.properties, outSize);
}

// A folder of simple coders: its packed stream through each coder in turn, to its output.
function decodeFolder(data, info, index, password) {
  const folder = info.folders[index];
  let offset = 32 + info.packPos;
  for (let i = 0; i < index; i += 1) offset += info.packSizes[i]; // one packed stream per folder here
  need(data, offset, info.packSizes[index], 'a 7z packed stream');
  let stream = data.subarray(offset, offset + info.packSizes[index]);
  let coder = folder.packedStreams[0];
  for (;;) {
    const outSize = folder.unpackSizes[coder];
    stream = runCoder(folder.coders[coder], stream, outSize, password);
    const pair = folder.bindPairs.find((bind) => bind.output === coder);
    if (!pair) break;
    coder = pair.input;
  }
  return stream;
}

function checkedFolder(data, info, index, password, failure) {
  const folder = info.folders[index];
  let out;
  try {
    out = decodeFolder(data, info, index, password);
  } catch (error) {
    if (error instanceof InvalidInput) throw error;
    throw failure(`the data does not decode (${error.message})`);
  }
  const size = unpackSize(folder);
  if (out.length < size) throw failure(`the data decodes to ${out.length} bytes, not ${size}`);
  return out.subarray(0, size);
}

function readFiles(cursor) {
  const count = cursor.number();
  const files = Array.from({ length: count }, () => ({ name: '', emptyStream: false, emptyFile: false, attributes: null }));
  let emptyStreams = 0;
  for (let id = cursor.number(); id !== K.end; id = cursor.number()) {
    const size = cursor.number();
    const property = new Cursor(cursor.bytes(size));
    if (id === K.emptyStream) {
      property.bits(count).forEach((bit, i) => { files[i].emptyStream = bit; });
      emptyStreams = files.filter((file) => file.emptyStream).length;
    } else if (id === K.emptyFile) {
      const bits = property.bits(emptyStreams);
      files.filter((file) => file.emptyStream).forEach((file, i) => { file.emptyFile = bits[i]; });
    } else if (id === K.name) {
      if (property.byte() !== 0) throw corrupt('external 7z names');
      const names = property.bytes(size - 1).toString('utf16le').split('\u0000');
      files.forEach((file, i) => { file.name = names[i] || ''; });
    } else if (id === K.attributes) {
      const defined = property.definedBits(count);
      if (property.byte() !== 0) throw corrupt('external 7z attributes');
      defined.forEach((isDefined, i) => { if (isDefined) files[i].attributes = property.bytes(4).readUInt32LE(0); });
    }
  }
  return files;
}

function isDirectory(file) {
  if (file.attributes !== null) {
    if (file.attributes & 0x10) return true;
    if (file.attributes & 0x8000) return ((file.attributes >>> 16) & 0o170000) === 0o040000;
    return false;
  }
  return file.emptyStream && !file.emptyFile;
}

function readSevenZipHeader(data, password) {
  need(data, 0, 32, 'the 7z signature header');
  if (crc32(data.subarray(12, 32)) !== data.readUInt32LE(8)) throw corrupt('the 7z start header fails its CRC');
  const offset = 32 + Number(data.readBigUInt64LE(12));
  const size = Number(data.readBigUInt64LE(20));
  need(data, offset, size, 'the 7z next header');
  let header = data.subarray(offset, offset + size);
  if (crc32(header) !== data.readUInt32LE(28)) throw corrupt('the 7z next header fails its CRC');
  if (header.length === 0) return { main: null, files: [] };
  let cursor = new Cursor(header);
  let id = cursor.byte();
  if (id === K.encodedHeader) {
    const info = readStreamsInfo(cursor);
    if (info.folders.length !== 1) throw corrupt('an encoded 7z header of several folders');
    const encrypted = folderMethod(info.folders[0]).encrypted;
    const failure = encrypted ? (what) => wrongPassword(`the encrypted member list: ${what}`) : corrupt;
    header = checkedFolder(data, info, 0, password, failure);
    if (info.folders[0].crc !== null && crc32(header) !== info.folders[0].crc) throw failure('the member list fails its CRC');
    try {
      return parseHeader(new Cursor(header));
    } catch (error) {
      throw encrypted && error.code === 'corrupt-archive' ? failure(error.message) : error;
    }
  }
  cursor = new Cursor(header);
  return parseHeader(cursor);
}

function parseHeader(cursor) {
  cursor.expect(K.header);
  let id = cursor.byte();
  if (id === K.archiveProperties) throw corrupt('7z archive properties are not read');
  if (id === K.additionalStreams) throw corrupt('7z additional streams are not read');
  let main = null;
  if (id === K.mainStreams) {
    main = readStreamsInfo(cursor);
    id = cursor.byte();
  }
  let files = [];
  if (id === K.files) {
    files = readFiles(cursor);
    id = cursor.byte();
  }
  if (id !== K.end) throw corrupt(`unexpected property ${id} in the 7z header`);
  return { main, files };
}

function readSevenZip(data, password) {
  const { main, files } = readSevenZipHeader(data, password);
  const members = [];
  let folder = 0;
  let inFolder = 0;
  for (const file of files) {
    if (file.emptyStream) {
      if (!isDirectory(file)) {
        members.push({ name: file.name, size: 0, encrypted: false, encryption: 'none', method: 'copy', supported: true });
      }
      continue;
    }
    while (main && folder < main.streams.length && inFolder >= main.streams[folder].count) {
      folder += 1;
      inFolder = 0;
    }
    if (!main || folder >= main.folders.length) throw corrupt('more 7z files than streams');
    const how = folderMethod(main.folders[folder]);
    const stream = main.streams[folder];
    if (!isDirectory(file)) {
      members.push({
        name: file.name,
        size: stream.sizes[inFolder],
        crc: stream.crcs[inFolder],
        encrypted: how.encrypted,
        encryption: how.encrypted ? '7z-aes-256' : 'none',
        method: how.method,
        supported: how.supported,
        folder,
        offset: stream.sizes.slice(0, inFolder).reduce((a, b) => a + b, 0),
      });
    }
    inFolder += 1;
  }
  return { format: '7z', members, main };
}

// 7z keeps no password check (decision seven-zip-has-no-password-check).
function unpackSevenZip(data, archive, member, password) {
  const failure = (what) => wrongPassword(`${member.name}: ${what}`);
  const out = checkedFolder(data, archive.main, member.folder, password, failure);
  const bytes = out.subarray(member.offset, member.offset + member.size);
  if (bytes.length !== member.size) throw failure(`decodes to ${bytes.length} bytes, not ${member.size}`);
  if (member.crc !== null && member.crc !== undefined && crc32(bytes) !== member.crc) throw failure('fails its CRC');
  return bytes;
}

// --- the steps, in the spec's order -------------------------------------------------------

function archiveFormat(data) {
  const head = data.subarray(0, 4).toString('latin1');
  if (head === 'PK\x03\x04' || head === 'PK\x05\x06') return 'zip';
  if (data.subarray(0, 6).equals(SEVEN_ZIP_SIGNATURE)) return '7z';
  throw new InvalidInput('unknown-format', `the archive begins with ${data.subarray(0, 6).toString('hex') || 'nothing'}; ZIP or 7z is read`);
}

function theMember(members) {
  if (members.length === 0) throw new InvalidInput('missing-member', 'the archive holds no file');
  if (members.length > 1) throw new InvalidInput('extra-member', `the archive holds ${members.length} files; the sequence is one`);
  const [member] = members;
  if (!member.encrypted) throw new InvalidInput('not-encrypted', `${member.name} is not encrypted`);
  if (!member.supported) throw new InvalidInput('unsupported-method', `${member.name} is ${member.encryption} ${member.method}`);
  if (member.size > MAX_MEMBER_BYTES) {
    throw new InvalidInput('member-too-large', `${member.name} declares ${member.size} bytes; at most ${MAX_MEMBER_BYTES} are unpacked`);
  }
  return member;
}

// A header that sends a read out of the buffer is a damaged archive, not a crash.
function readDirectory(data, format, password) {
  try {
    return format === 'zip' ? readZip(data) : readSevenZip(data, password);
  } catch (error) {
    if (error instanceof InvalidInput) throw error;
    throw corrupt(`the ${format} directory cannot be read (${error.message})`);
  }
}

// The archive (base64, checked by the input schema's pattern) and its password to the
// member's bytes: { format, encryption, method, member, bytes }.
function openArchive(base64, password) {
  const data = Buffer.from(base64, 'base64');
  const format = archiveFormat(data);
  const archive = readDirectory(data, format, password);
  const member = theMember(archive.members);
  const bytes = format === 'zip' ? unpackZip(data, member, password) : unpackSevenZip(data, archive, member, password);
  return { format, encryption: member.encryption, method: member.method, member: member.name, bytes };
}

module.exports = { openArchive };
