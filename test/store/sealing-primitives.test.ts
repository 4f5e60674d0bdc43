// The sealing primitives of issue 48: sealed buffers and sealed streams under a data key, and data
// keys wrapped under a master key. Each must refuse what was changed, moved onto another object
// (the additional data), cut short, reordered, or sealed under another key.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';

import t from 'tap';

import { LocalKeyProvider, masterKeyIdOf } from '../../src/store/master-keys.js';
import { openBuffer, sealBuffer, sealedKeyVersion } from '../../src/store/sealed-buffer.js';
import { FRAME_BYTES, openStream, SEALED_STREAM_HEADER_BYTES, sealedStreamBytes, sealStream } from '../../src/store/sealed-stream.js';
import { SealingError } from '../../src/store/sealing-error.js';

const key = randomBytes(32);
const otherKey = randomBytes(32);

t.test('a sealed buffer opens with its key and identity, and names its key version', async (t) => {
  const sealed = sealBuffer(key, 7, 'jobs.request:job_a', Buffer.from('the patient reports chest pain'));
  t.equal(sealedKeyVersion(sealed), 7);
  t.notOk(sealed.includes(Buffer.from('chest pain')), 'no plaintext in the sealed bytes');
  t.equal(openBuffer(key, 'jobs.request:job_a', sealed).toString(), 'the patient reports chest pain');
  t.not(sealBuffer(key, 7, 'x', Buffer.from('same')).toString('hex'), sealBuffer(key, 7, 'x', Buffer.from('same')).toString('hex'), 'fresh nonce per seal');
});

t.test('a sealed buffer refuses tampering, another identity, another key and a changed version', async (t) => {
  const sealed = sealBuffer(key, 1, 'jobs.request:job_a', Buffer.from('secret'));
  const tampered = Buffer.from(sealed);
  tampered[tampered.length - 20]! ^= 1;
  t.throws(() => openBuffer(key, 'jobs.request:job_a', tampered), SealingError);
  t.throws(() => openBuffer(key, 'jobs.request:job_b', sealed), SealingError, 'swapped onto another job');
  t.throws(() => openBuffer(otherKey, 'jobs.request:job_a', sealed), SealingError, 'wrong key');
  const otherVersion = Buffer.from(sealed);
  otherVersion.writeUInt32BE(2, 4);
  t.throws(() => openBuffer(key, 'jobs.request:job_a', otherVersion), SealingError, 'the header is authenticated');
  t.throws(() => openBuffer(key, 'jobs.request:job_a', Buffer.from('{"plain":true}')), SealingError);
  t.equal(sealedKeyVersion(Buffer.from('{"plain":true}')), null);
});

async function sealAll(plain: Buffer, aad = 'jobs.audio:job_a', chunk = 10_000): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let at = 0; at < plain.length; at += chunk) parts.push(plain.subarray(at, at + chunk));
  return buffer(Readable.from(parts).pipe(sealStream(key, 3, aad)));
}

async function openAll(sealed: Buffer, aad = 'jobs.audio:job_a', withKey = key, chunk = 9_999): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let at = 0; at < sealed.length; at += chunk) parts.push(sealed.subarray(at, at + chunk));
  return buffer(Readable.from(parts).pipe(openStream(async (version) => (version === 3 ? withKey : otherKey), aad)));
}

t.test('a sealed stream round-trips at every size around its frames', async (t) => {
  for (const size of [0, 1, FRAME_BYTES - 1, FRAME_BYTES, FRAME_BYTES + 1, 3 * FRAME_BYTES, 3 * FRAME_BYTES + 17]) {
    const plain = randomBytes(size);
    const sealed = await sealAll(plain);
    t.equal(sealed.length, sealedStreamBytes(size), `sealed size of ${size}`);
    t.ok((await openAll(sealed)).equals(plain), `${size} bytes`);
  }
  const pattern = Buffer.from('KNOWN-BYTE-PATTERN-0123456789');
  t.notOk((await sealAll(Buffer.concat([randomBytes(70_000), pattern, randomBytes(10)]))).includes(pattern), 'no plaintext in the sealed bytes');
});

t.test('a sealed stream refuses tampering, truncation, reordering, another identity and another key', async (t) => {
  const plain = randomBytes(3 * FRAME_BYTES + 100);
  const sealed = await sealAll(plain);
  const sealedFrame = FRAME_BYTES + 16;
  const frameAt = (n: number) => sealed.subarray(SEALED_STREAM_HEADER_BYTES + n * sealedFrame, SEALED_STREAM_HEADER_BYTES + (n + 1) * sealedFrame);
  const header = sealed.subarray(0, SEALED_STREAM_HEADER_BYTES);

  const tampered = Buffer.from(sealed);
  tampered[SEALED_STREAM_HEADER_BYTES + 5]! ^= 1;
  await t.rejects(openAll(tampered), SealingError, 'a changed byte');
  await t.rejects(openAll(sealed.subarray(0, SEALED_STREAM_HEADER_BYTES + 3 * sealedFrame)), SealingError, 'cut at a frame boundary');
  await t.rejects(openAll(sealed.subarray(0, sealed.length - 50)), SealingError, 'cut inside the last frame');
  await t.rejects(openAll(sealed.subarray(0, 5)), SealingError, 'cut inside the header');
  const reordered = Buffer.concat([header, frameAt(1), frameAt(0), sealed.subarray(SEALED_STREAM_HEADER_BYTES + 2 * sealedFrame)]);
  await t.rejects(openAll(reordered), SealingError, 'frames swapped');
  await t.rejects(openAll(sealed, 'jobs.audio:job_b'), SealingError, 'moved onto another job');
  await t.rejects(openAll(sealed, 'jobs.audio:job_a', otherKey), SealingError, 'another key');
  await t.rejects(openAll(Buffer.from('RIFF....WAVEfmt plain audio')), SealingError, 'plain bytes');
});

t.test('a master key wraps data keys bound to their tenant and version, and names itself by a hash', async (t) => {
  const master = randomBytes(32);
  const provider = new LocalKeyProvider([master]);
  t.equal(provider.activeKeyId, masterKeyIdOf(master));
  t.match(provider.activeKeyId, /^mk-[0-9a-f]{16}$/);
  t.notOk(provider.activeKeyId.includes(master.toString('hex').slice(0, 16)), 'the id is not the key');
  const dataKey = randomBytes(32);
  const wrapped = await provider.wrap(dataKey, 'tenant-a/v1');
  t.equal(wrapped.masterKeyId, provider.activeKeyId);
  t.notOk(wrapped.wrapped.includes(dataKey));
  t.ok((await provider.unwrap(wrapped, 'tenant-a/v1')).equals(dataKey));
  await t.rejects(provider.unwrap(wrapped, 'tenant-b/v1'), SealingError, 'moved onto another tenant');
  await t.rejects(new LocalKeyProvider([randomBytes(32)]).unwrap(wrapped, 'tenant-a/v1'), new RegExp(wrapped.masterKeyId), 'names the missing key');
  const rotated = new LocalKeyProvider([randomBytes(32), master]);
  t.ok(rotated.has(wrapped.masterKeyId));
  t.ok((await rotated.unwrap(wrapped, 'tenant-a/v1')).equals(dataKey), 'an older key still unwraps');
  t.throws(() => new LocalKeyProvider([randomBytes(16)]), SealingError);
});
