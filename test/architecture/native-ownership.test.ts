// C handles in the addon are owned by RAII types, never freed by hand on each return path (where one
// forgotten path leaks a state of hundreds of megabytes, or a second free crashes the process). The
// whisper_state is owned by native/whisper-state.h; this check keeps it that way.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const NATIVE = fileURLToPath(new URL('../../native', import.meta.url));
const OWNER = 'whisper-state.h';

t.test('whisper_state is created and freed only through its owner type', async (t) => {
  const sources = readdirSync(NATIVE).filter((name) => /\.(cc|h)$/.test(name));
  t.ok(sources.length > 20, `${sources.length} native sources`);
  const byHand = sources.filter((name) => name !== OWNER && /\bwhisper_(?:free|init)_state\s*\(/.test(readFileSync(`${NATIVE}/${name}`, 'utf8')));
  t.same(byHand, [], 'no whisper_init_state or whisper_free_state outside native/whisper-state.h');
  t.match(readFileSync(`${NATIVE}/${OWNER}`, 'utf8'), /std::unique_ptr<whisper_state, WhisperStateDeleter>/);
});
