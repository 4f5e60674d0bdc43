// `svc-stt models` lists the manifest's models with whether each file is in the models directory, the
// other model files there, and the VAD model the service would use: its path (SVC_VAD_MODEL or the
// installed default), whether it is there, and which Silero release it holds.
import { copyFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import t, { type Test } from 'tap';

import { runModelsCommand } from '../../src/cli/models-command.js';
import { defaultVadModelPath, vadModelPath } from '../../src/models/vad-model-path.js';
import { capturedStdout } from '../helpers/captured-stdout.js';
import { testModelPath } from '../helpers/test-models.js';

const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

async function listWith(t: Test, vadModel: string | undefined): Promise<string> {
  const saved = process.env.SVC_VAD_MODEL;
  if (vadModel === undefined) delete process.env.SVC_VAD_MODEL;
  else process.env.SVC_VAD_MODEL = vadModel;
  t.teardown(() => {
    if (saved === undefined) delete process.env.SVC_VAD_MODEL;
    else process.env.SVC_VAD_MODEL = saved;
  });
  const out = await capturedStdout(() => runModelsCommand([]));
  return out.slice(out.indexOf('VAD model'));
}

t.test('the VAD model path: the installed default unless SVC_VAD_MODEL says otherwise', async (t) => {
  t.equal(defaultVadModelPath(), join(PACKAGE_ROOT, 'models', 'ggml-silero-v6.2.1.bin'));
  t.equal(vadModelPath({}), defaultVadModelPath());
  t.equal(vadModelPath({ SVC_VAD_MODEL: '' }), defaultVadModelPath(), 'empty means unset');
  t.equal(vadModelPath({ SVC_VAD_MODEL: 'x/silero.bin' }), resolve('x/silero.bin'));
});

t.test('lists a present model with its release', async (t) => {
  // The install's v5.1.2, byte for byte whisper.cpp's official file (silero-vad-install.test.ts).
  const v5 = join(dirname(defaultVadModelPath()), 'ggml-silero-v5.1.2.bin');
  const out = await listWith(t, v5);
  t.equal(out, `VAD model (SVC_VAD_MODEL)\n  ${v5}\n  present, Silero VAD 5.1.2\n`);
});

t.test('lists a missing or unusable model as such', async (t) => {
  const missing = join(t.testdir(), 'nope.bin');
  t.match(await listWith(t, missing), `${missing}\n  missing`);
  const bogus = join(t.testdir(), 'bogus.bin');
  writeFileSync(bogus, 'not a model at all');
  t.match(await listWith(t, bogus), /unusable: .*bad magic/);
});

t.test('lists which models are in the models directory, and the other model files there', async (t) => {
  const dir = t.testdir();
  const micro = await testModelPath('micro');
  symlinkSync(micro, join(dir, 'ggml-tiny.bin'));
  copyFileSync(micro, join(dir, 'ggml-test-micro-seed1.bin'));
  writeFileSync(join(dir, 'broken.bin'), 'not a model at all');
  writeFileSync(join(dir, 'notes.txt'), 'not a .bin file');
  const saved = process.env.SVC_MODELS_DIR;
  process.env.SVC_MODELS_DIR = dir;
  t.teardown(() => {
    if (saved === undefined) delete process.env.SVC_MODELS_DIR;
    else process.env.SVC_MODELS_DIR = saved;
  });
  const out = await capturedStdout(() => runModelsCommand(['list']));
  t.match(out, `Models directory (SVC_MODELS_DIR)\n  ${dir}\n`);
  t.match(out, /\ntiny +78 MB +sha256 +present, [\d.]+ MB: not the published file\n/, 'a present file, flagged as not the published one');
  t.match(out, /\nbase +148 MB +sha256 +-\n/, 'an absent one');
  t.match(out, /svc-stt models download NAME/);
  const others = out.slice(out.indexOf('Other model files there'), out.indexOf('VAD model'));
  t.match(others, /ggml-test-micro-seed1\.bin +[\d.]+ MB +whisper micro, f16\n/);
  t.match(others, /broken\.bin +0\.0 MB +not usable: .*bad magic/);
  t.notMatch(others, /ggml-tiny\.bin|notes\.txt/, 'the manifest model is in the list above; only .bin files');
});
