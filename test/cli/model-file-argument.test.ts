// How a model argument becomes a file: a name means ggml-NAME.bin in the models directory; anything
// that looks like a path (a separator, a .bin ending) or names an existing file is a path, so a missing
// one is reported as the file the user meant. --model wins over SVC_MODEL.
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import t from 'tap';

import { modelArgument } from '../../src/cli/model-file-argument.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { modelsDir, resolveModelFile } from '../../src/models/model-paths.js';

t.test('names and paths', async (t) => {
  const saved = process.env.SVC_MODELS_DIR;
  t.teardown(() => {
    if (saved === undefined) delete process.env.SVC_MODELS_DIR;
    else process.env.SVC_MODELS_DIR = saved;
  });
  process.env.SVC_MODELS_DIR = '';
  t.equal(modelsDir(), resolve('models'), 'empty means unset');
  const dir = t.testdir();
  process.env.SVC_MODELS_DIR = dir;
  t.equal(modelsDir(), dir);
  t.equal(resolveModelFile('base'), join(dir, 'ggml-base.bin'));
  t.equal(resolveModelFile('large-v3-turbo-q5_0'), join(dir, 'ggml-large-v3-turbo-q5_0.bin'));
  t.equal(resolveModelFile('mine.bin'), resolve('mine.bin'), 'not models/ggml-mine.bin.bin');
  t.equal(resolveModelFile('some/dir/model'), resolve('some/dir/model'));
  const file = join(dir, 'plain');
  writeFileSync(file, '');
  t.equal(resolveModelFile(file), file);
});

t.test('--model, else SVC_MODEL, else a usage error', async (t) => {
  t.same(modelArgument('tiny', { SVC_MODEL: 'base' }), { value: 'tiny', from: '--model' });
  t.same(modelArgument(undefined, { SVC_MODEL: 'base' }), { value: 'base', from: 'SVC_MODEL' });
  t.throws(
    () => modelArgument(undefined, { SVC_MODEL: '' }),
    new UsageError('no model: pass --model PATH|NAME or set SVC_MODEL (`npx svc-stt models list` shows the models and which are downloaded)'),
  );
});
