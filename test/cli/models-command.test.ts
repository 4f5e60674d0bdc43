// `svc-stt models` lists the VAD model the service would use: its path (SVC_VAD_MODEL or the
// installed default), whether it is there, and which Silero release it holds.
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { runModelsCommand } from '../../src/cli/models-command.js';
import { defaultVadModelPath, vadModelPath } from '../../src/models/vad-model-path.js';
import { capturedStdout } from '../helpers/captured-stdout.js';
import { sileroOracles } from '../helpers/silero-oracles.js';

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
  const out = await listWith(t, sileroOracles.officialGgmlV5());
  t.equal(out, `VAD model (SVC_VAD_MODEL)\n  ${sileroOracles.officialGgmlV5()}\n  present, Silero VAD 5.1.2\n`);
});

t.test('lists a missing or unusable model as such', async (t) => {
  const missing = join(t.testdir(), 'nope.bin');
  t.match(await listWith(t, missing), `${missing}\n  missing`);
  const bogus = join(t.testdir(), 'bogus.bin');
  writeFileSync(bogus, 'not a model at all');
  t.match(await listWith(t, bogus), /unusable: .*bad magic/);
});
