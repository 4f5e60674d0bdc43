// The playground's realtime tab: a key, the session's model, language and live speaker labels, and
// Start / Stop; below, the live transcript (the turn's partial replaced as it is revised, each
// turn_final appended, the session's final record summed up). The page's script does the streaming
// (/assets/playground-realtime.js): the microphone is the browser's, so without script the tab only
// says so.
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { LANGUAGE_FAMILIES } from '../domain/language-families.js';
import { MODEL_IDS } from '../domain/model-ids.js';
import { escapeHtml as e } from './console-http.js';
import { csrfField, layout, type PageUser } from './console-layout.js';
import { keySelect, playgroundTabs } from './playground-page.js';

export const REALTIME_SCRIPT = '/assets/playground-realtime.js';

export function realtimePage(user: PageUser, keys: readonly ApiKeyRecord[], served: boolean): string {
  const options = (values: readonly string[]) => values.map((v) => `<option value="${e(v)}">${e(v)}</option>`).join('');
  const body = served
    ? `<form id="realtime-form" method="post" action="/playground/realtime/secret" class="stack playground">
${csrfField(user)}
${keySelect(keys, undefined)}
<label>Model<select name="model">${options(MODEL_IDS)}</select></label>
<label>Language<select name="language">${options(LANGUAGE_FAMILIES)}</select></label>
<label class="check"><input type="checkbox" name="diarization" value="true"> Live speaker labels (provisional)</label>
<p id="realtime-needs-script" class="muted">The realtime tab needs this page's script: the microphone is the browser's.</p>
<div class="buttons" hidden><button type="submit" class="primary" id="realtime-start">Start streaming</button>
<button type="button" id="realtime-stop" disabled>Stop</button></div>
<p id="realtime-status" role="status" class="muted"></p>
</form>
<section aria-labelledby="live-heading" class="live">
<h2 id="live-heading">Live transcript</h2>
<ol id="realtime-turns" class="segments"></ol>
<p id="realtime-partial" class="partial"></p>
<p id="realtime-final"></p>
</section>`
    : '<p>This process serves no realtime listener.</p>';
  return layout(
    'Playground',
    `${playgroundTabs('realtime')}
<p>Streams your microphone to the realtime listener as one of your keys (PCM16, 16 kHz, mono). The key never reaches this page: the
console gives it a single-use client secret of the key, valid 30 seconds, that opens one session. Drafts of the turn under way are
replaced as they are revised; each finished turn is added below. Stop ends the session with its final record.</p>
${body}`,
    user,
    null,
    served ? [REALTIME_SCRIPT] : [],
  );
}
