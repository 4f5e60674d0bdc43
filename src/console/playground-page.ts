// The playground's upload page: a form choosing one of the tenant's active keys and the API's own
// transcription fields (same names, same formats: the API's parser reads them), and the answer below
// it. The form posts as a plain multipart form (it works without script: the answer is this page
// again, at its own address after a redirect); the page's script (/assets/playground.js) sends it with fetch instead, so the chosen
// file stays in the page and the words can play it.
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { LANGUAGE_FAMILIES } from '../domain/language-families.js';
import { MODEL_IDS } from '../domain/model-ids.js';
import { escapeHtml as e } from './console-http.js';
import { csrfField, layout, type Notice, type PageUser } from './console-layout.js';

export const PLAYGROUND_SCRIPT = '/assets/playground.js';

/** The form's values as sent, to show them again with the answer (never the file). */
export type PlaygroundForm = Partial<Record<string, string>>;

/** The two tabs: an upload, and the microphone streamed to the realtime listener. */
export function playgroundTabs(current: 'upload' | 'realtime'): string {
  const tab = (href: string, label: string, name: typeof current) =>
    `<a href="${href}"${name === current ? ' aria-current="page" class="current"' : ''}>${label}</a>`;
  const tabs = tab('/playground', 'Upload a file', 'upload') + tab('/playground/realtime', 'Realtime microphone', 'realtime');
  return `<nav aria-label="Playground" class="tabs">${tabs}</nav>`;
}

/** The tenant's active keys as a select (by id); the page says how to make one when there is none. */
export function keySelect(keys: readonly ApiKeyRecord[], chosen: string | undefined): string {
  const active = keys.filter((k) => k.revokedAt === null);
  if (!active.length) return '<p>This tenant has no active key: <a href="/keys">create one</a> first.</p>';
  return `<label>API key<select name="key_id" required>${active
    .map((k) => `<option value="${e(k.id)}"${k.id === chosen ? ' selected' : ''}>${e(k.id)} (${e(k.plan)})</option>`)
    .join('')}</select></label>`;
}

const checked = (on: boolean) => (on ? ' checked' : '');
const value = (v: string | undefined) => (v === undefined ? '' : ` value="${e(v)}"`);

export function playgroundPage(user: PageUser, keys: readonly ApiKeyRecord[], form: PlaygroundForm, result: string, notice: Notice | null): string {
  const option = (v: string, label: string, current: string | undefined) =>
    `<option value="${e(v)}"${v === (current ?? '') ? ' selected' : ''}>${e(label)}</option>`;
  const languages = [
    option('', "the key's default, else detected", form.language),
    option('auto', 'auto: detected per utterance', form.language),
    ...LANGUAGE_FAMILIES.map((l) => option(l, l, form.language)),
  ].join('');
  // Words are asked for unless the user unticked them (a fresh form has them).
  const wordTimes = form['timestamp_granularities[]'] !== undefined || Object.keys(form).length === 0;
  return layout(
    'Playground',
    `${playgroundTabs('upload')}
<p>Transcribe a recording as one of your keys: the API's own route runs it, billed and audited as that key's request.
Recordings up to the inline limit are answered here; longer ones become a job of the key.</p>
<form method="post" action="/playground" enctype="multipart/form-data" class="stack playground" id="playground-form">
${csrfField(user)}
${keySelect(keys, form.key_id)}
<label>Recording<input type="file" name="file" accept="audio/*,video/mp4,video/webm" required></label>
<label>Model<select name="model">${MODEL_IDS.map((m) => option(m, m, form.model ?? MODEL_IDS[0])).join('')}</select></label>
<label>Language<select name="language">${languages}</select></label>
<label>Language hints (with auto: a JSON array of tags)<input type="text" name="language_hints" placeholder='["en", "es"]'${value(form.language_hints)}></label>
<label class="check"><input type="checkbox" name="timestamp_granularities[]" value="word"${checked(wordTimes)}> Word times</label>
<fieldset><legend>Speakers</legend>
<label class="check"><input type="checkbox" name="diarize" value="true"${checked(form.diarize === 'true')}> Tell speakers apart (diarize)</label>
<label>At least (min_speakers, 1 to 4)<input type="number" name="min_speakers" min="1" max="4"${value(form.min_speakers)}></label>
<label>At most (max_speakers, 1 to 4)<input type="number" name="max_speakers" min="1" max="4"${value(form.max_speakers)}></label>
</fieldset>
<label>Vocabulary (a JSON array of terms)
<textarea name="vocabulary" rows="2" placeholder='["metoprolol", "tachycardia"]'>${e(form.vocabulary ?? '')}</textarea></label>
<label class="check"><input type="checkbox" name="dictionary" value="false"${checked(form.dictionary === 'false')}> Leave out the key's stored terms</label>
<label>Patterns (comma-separated; the key needs the patterns entitlement)<input type="text" name="patterns"${value(form.patterns)}></label>
<label class="check"><input type="checkbox" name="multichannel" value="true"${checked(form.multichannel === 'true')}>
Stereo: each channel apart (multichannel)</label>
<fieldset><legend>Clinical text</legend>
<label class="check"><input type="checkbox" name="smart_format" value="true"${checked(form.smart_format === 'true')}>
Write clinical quantities as a chart does (smart_format: 25 mg, 142/88)</label>
<label>Redact PHI (redact: comma-separated policies, e.g. identifiers, health, all)<input type="text" name="redact"${value(form.redact)}></label>
</fieldset>
<button type="submit" class="primary">Transcribe</button>
<p id="playground-status" role="status" class="muted"></p>
</form>
<section id="playground-result" tabindex="-1">${notice ? noticeHtml(notice) : ''}${result}</section>`,
    user,
    null,
    [PLAYGROUND_SCRIPT],
  );
}

function noticeHtml(notice: Notice): string {
  return `<div class="notice ${notice.kind}" role="${notice.kind === 'error' ? 'alert' : 'status'}">${e(notice.text)}</div>`;
}
