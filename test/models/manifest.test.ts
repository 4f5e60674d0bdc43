// The shipped manifest: every model the product offers, each with a published checksum and size.
import t from 'tap';

import { loadManifest, ManifestError, parseManifest } from '../../src/models/manifest.js';

t.test('the shipped manifest lists the offered models, all verifiable', async (t) => {
  const manifest = await loadManifest();
  const names = manifest.models.map((m) => m.name);
  for (const name of [
    'tiny',
    'tiny.en',
    'base',
    'base.en',
    'small',
    'small.en',
    'medium',
    'medium.en',
    'large-v3',
    'large-v3-turbo',
    'tiny-q5_1',
    'base-q5_1',
    'small-q5_1',
    'medium-q5_0',
    'large-v3-q5_0',
    'large-v3-turbo-q5_0',
    'large-v3-turbo-q8_0',
    'tiny-q8_0',
    'base-q8_0',
    'small-q8_0',
    'medium-q8_0',
  ]) {
    t.ok(names.includes(name), name);
  }
  for (const entry of manifest.models) {
    t.equal(entry.url, `https://huggingface.co/ggerganov/whisper.cpp/resolve/5359861c739e955e79d9a303bcbc70fb988958b1/ggml-${entry.name}.bin`);
    t.match(entry.sha256, /^[0-9a-f]{64}$/, `${entry.name} has a SHA-256`);
    t.ok(entry.sizeBytes && entry.sizeBytes > 30e6, `${entry.name} has a size`);
    t.equal(entry.multilingual, !entry.name.includes('.en'));
    for (const key of entry.source?.match(/[\w.-]+(?=;|$)/g) ?? []) {
      t.ok(manifest.sources?.[key], `${entry.name}: source '${key}' is described`);
    }
  }
});

t.test('malformed manifests are rejected', async (t) => {
  const base = { name: 'x', file: 'ggml-x.bin', url: 'https://example.org/ggml-x.bin', arch: 'tiny', multilingual: true, quantization: 'f16' };
  t.doesNotThrow(() => parseManifest({ models: [base] }));
  t.throws(() => parseManifest({}), ManifestError);
  t.throws(() => parseManifest({ models: [{ ...base, name: '../x', file: 'ggml-../x.bin' }] }), ManifestError);
  t.throws(() => parseManifest({ models: [{ ...base, file: 'other.bin' }] }), ManifestError);
  t.throws(() => parseManifest({ models: [{ ...base, sha256: 'abc' }] }), ManifestError);
  t.throws(() => parseManifest({ models: [base, base] }), /duplicate/);
});
