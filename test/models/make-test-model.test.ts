// Generated test models: deterministic bytes, the real architectures, a vocabulary that is byte-level.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import t from 'tap';

import { ARCHITECTURES, makeTestModel } from '../../src/models/make-test-model.js';
import { readModelHeader } from '../../src/models/model-header.js';
import { storedTextTokenCount } from '../../src/models/whisper-layout.js';

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

t.test('same seed gives identical bytes, another seed different ones', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-test-model-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const a = join(dir, 'a.bin');
  const b = join(dir, 'b.bin');
  const c = join(dir, 'c.bin');
  await makeTestModel({ arch: 'micro', seed: 7, out: a });
  await makeTestModel({ arch: 'micro', seed: 7, out: b });
  await makeTestModel({ arch: 'micro', seed: 8, out: c });
  t.equal(await sha256(a), await sha256(b), 'seed 7 twice: byte-identical');
  t.not(await sha256(a), await sha256(c), 'seed 8 differs');
  t.same((await readdir(dir)).sort(), ['a.bin', 'b.bin', 'c.bin'], 'no temporary files left behind');
});

t.test('the file has the declared architecture and whisper.cpp layout', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-test-model-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'micro.bin');
  await makeTestModel({ arch: 'micro', seed: 1, out: path });
  const header = await readModelHeader(path);
  t.match(header, {
    arch: 'micro',
    multilingual: true,
    nVocab: 51865,
    nAudioCtx: 1500,
    nTextCtx: 448,
    nAudioState: 64,
    nAudioLayer: 1,
    nTextLayer: 1,
    nMels: 80,
    ftype: 1,
    weightType: 'f16',
  });
  t.ok(header.fileSize > 7e6 && header.fileSize < 9e6, `micro is about 8 MB (${header.fileSize})`);

  const bytes = await readFile(path);
  t.equal(bytes.readUInt32LE(0), 0x67676d6c, 'ggml magic');
  // After magic, 11 hparams, n_mel, n_fft and the 80x201 filterbank comes the vocabulary.
  const vocabAt = 4 + 11 * 4 + 8 + 80 * 201 * 4;
  t.equal(bytes.readInt32LE(vocabAt), storedTextTokenCount(51865), '50257 stored text tokens; whisper.cpp adds the 1608 special ones');
  const tokens: Buffer[] = [];
  for (let i = 0, at = vocabAt + 4; i < 50257; i++) {
    const length = bytes.readUInt32LE(at);
    tokens.push(bytes.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  t.same(new Set(tokens.slice(0, 256).map((b) => b.length === 1 && b[0])).size, 256, 'the first 256 tokens are the 256 single bytes');
  t.equal(new Set(tokens.map((b) => b.toString('latin1'))).size, tokens.length, 'tokens are unique');
  t.ok(
    tokens.some((b) => b.toString() === ' patient'),
    'medical subwords with a leading space',
  );
  const partial = tokens.filter((b) => b.length > 1 && !isCompleteUtf8(b));
  t.ok(partial.length > 1000, `many multi-byte tokens are partial UTF-8 (${partial.length})`);
  t.ok(
    tokens.every((b) => b.length === 1 || !b.includes(0)),
    'no NUL inside multi-byte tokens',
  );
});

t.test('architectures match the real models', async (t) => {
  t.match(ARCHITECTURES.tiny, {
    nAudioState: 384,
    nAudioHead: 6,
    nAudioLayer: 4,
    nTextLayer: 4,
    nVocab: 51865,
    nAudioCtx: 1500,
    nTextCtx: 448,
    nMels: 80,
    ftype: 1,
  });
  t.match(ARCHITECTURES.base, { nAudioState: 512, nAudioHead: 8, nAudioLayer: 6, nTextLayer: 6 });
  t.match(ARCHITECTURES.small, { nAudioState: 768, nAudioHead: 12, nAudioLayer: 12, nTextLayer: 12 });
});

t.test('bad options are rejected before anything is written', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-test-model-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await t.rejects(makeTestModel({ arch: 'huge' as 'micro', seed: 1, out: join(dir, 'x.bin') }), RangeError);
  await t.rejects(makeTestModel({ arch: 'micro', seed: -1, out: join(dir, 'x.bin') }), RangeError);
  t.same(await readdir(dir), []);
});

function isCompleteUtf8(bytes: Buffer): boolean {
  return Buffer.from(bytes.toString('utf8')).equals(bytes) && !bytes.toString('utf8').includes('\uFFFD');
}
