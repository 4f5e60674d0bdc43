// C handles in the addon are owned by RAII types, never freed by hand on each return path (where one
// forgotten path leaks a state of hundreds of megabytes, or a second free crashes the process). The
// whisper_state is owned by native/whisper-state.h; this check keeps it that way.
// Each shape is written once: one handle template for every model kind (native/model-handle.h, where a
// copy per kind had already drifted into a leak), one worker base for every operation over PCM
// (native/pcm-worker.h), and one reader of PCM (ReadPcm, through PinnedPcm), so a malformed recording
// fails the same way in every operation.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import t from 'tap';

const NATIVE = fileURLToPath(new URL('../../native', import.meta.url));
const OWNER = 'whisper-state.h';

const sources = readdirSync(NATIVE).filter((name) => /\.(cc|h)$/.test(name));
const text = (name: string): string => readFileSync(`${NATIVE}/${name}`, 'utf8');
/** The top-level native sources whose text matches `pattern`. */
const matching = (pattern: RegExp): string[] => sources.filter((name) => pattern.test(text(name)));

t.test('whisper_state is created and freed only through its owner type', async (t) => {
  t.ok(sources.length > 20, `${sources.length} native sources`);
  const byHand = sources.filter((name) => name !== OWNER && /\bwhisper_(?:free|init)_state\s*\(/.test(text(name)));
  t.same(byHand, [], 'no whisper_init_state or whisper_free_state outside native/whisper-state.h');
  t.match(text(OWNER), /std::unique_ptr<whisper_state, WhisperStateDeleter>/);
});

t.test('every model handle is the one ModelHandle template, its carrier owned by a unique_ptr', async (t) => {
  t.same(matching(/\bNapi::ObjectWrap</), ['model-handle.h'], 'the only JavaScript-wrapped class is in native/model-handle.h');
  t.match(text('model-handle.h'), /template <typename Model>\s*class ModelHandle : public Napi::ObjectWrap<ModelHandle<Model>>/);
  t.match(text('model-handle.h'), /std::make_unique<Carrier>/, 'the carrier is owned until the constructor takes the model');
  t.same(matching(/\bnew\s+std::shared_ptr</), [], 'no carrier allocated by hand');
  t.same(matching(/\bdelete\s+\w/), [], 'nothing deleted by hand');
  t.same(matching(/struct ModelKind<\w+>/), ['vad-model-kind.h', 'whisper-model-kind.h'], 'one kind per model type');
});

t.test('PCM is read only by ReadPcm, and pinned only by PinnedPcm', async (t) => {
  t.same(matching(/TypedArrayType\(\)\s*!=\s*napi_float32_array/), ['option-readers.cc'], 'the Float32Array check is in ReadPcm');
  t.same(matching(/pcm must be a Float32Array|pcm is empty/), ['option-readers.cc'], 'its errors are written once');
  t.same(matching(/\bReadPcm\s*\(/), ['option-readers.cc', 'option-readers.h', 'pinned-pcm.h'], 'PinnedPcm::Read is the one caller');
  t.same(matching(/\bPersistent\s*\(\s*pcm\b/), ['pinned-pcm.h'], 'no worker pins samples by hand');
});

t.test('every operation over PCM is a PcmWorker', async (t) => {
  // Only the loaders (no PCM) and the base itself derive from SafeAsyncWorker directly.
  const direct = sources.flatMap((name) => [...text(name).matchAll(/class (\w+) : public SafeAsyncWorker\b/g)].map((m) => m[1]));
  t.same(direct.sort(), ['LoadModelWorker', 'LoadVadModelWorker', 'PcmWorker']);
  for (const name of ['TranscribeWorker', 'DetectLanguageWorker', 'DetectSpeechWorker', 'DiarizeWorker', 'SpeakerFeaturesWorker']) {
    t.ok(matching(new RegExp(`class ${name} : public (?:PcmWorker|ModelPcmWorker<\\w+>) \\{`)).length === 1, `${name} derives from PcmWorker`);
  }
});
