// The playground's answer, rendered from the API's own verbose_json body (contract/response-body.ts):
// the transcript's segments with their speakers (a CSS class per speaker and the label in text, so
// colour is never the only cue), its words as buttons with their start times (the page's script
// plays the uploaded audio from a word's start), the language runs, and the vocabulary audit in
// plain words. Everything a caller sent or the transcript holds is escaped.
import type { verboseBody } from '../contract/response-body.js';
import { escapeHtml as e } from './console-http.js';

export type VerboseAnswer = ReturnType<typeof verboseBody>;
type Segment = VerboseAnswer['segments'][number];
type Word = NonNullable<VerboseAnswer['words']>[number];
type Audit = VerboseAnswer['vocabulary'];

/** Speaker colours the stylesheet has (`speaker-1` ...); further voices reuse them, their label says which. */
const SPEAKER_COLOURS = 4;

const seconds = (s: number) => `${s.toFixed(2)} s`;
const list = (items: readonly string[]) => (items.length ? items.map((i) => `“${e(i)}”`).join(', ') : 'none');

export function playgroundResult(answer: VerboseAnswer): string {
  const colourOf = speakerColours(answer);
  const words = answer.words ?? [];
  const wordsBySegment = groupWords(answer.segments, words);
  const segments = answer.segments
    .map((segment, i) => {
      const speaker = segment.speaker;
      const own = wordsBySegment[i];
      const body = own.length ? `<p class="words">${own.map(wordButton).join(' ')}</p>` : `<p>${e(segment.text)}</p>`;
      return `<li class="segment ${colourOf(speaker)}">
<p class="segment-head"><span class="speaker-label">Speaker ${e(speaker)}</span>
<span class="muted">${seconds(segment.start)} to ${seconds(segment.end)}</span></p>
${body}</li>`;
    })
    .join('\n');
  const speakers = answer.speakers.length
    ? `<p>Speakers: ${answer.speakers.map((s) => `<span class="speaker-chip ${colourOf(s.speaker)}">${e(s.speaker)}</span>`).join(' ')}</p>`
    : '<p class="muted">No speakers: send it again with “Tell speakers apart” to label who spoke when.</p>';
  return `<h2 id="result-heading" tabindex="-1">Transcript</h2>
<p class="muted">Request <code>${e(answer.request_id)}</code> · ${seconds(answer.duration)} of audio · ${e(answer.model)}
· language ${e(answer.language)} (${e(answer.language_source)})</p>
<audio id="playground-audio" controls preload="auto" hidden></audio>
${speakers}
${words.length ? '<p class="muted">Each word shows its start time; choose a word to play the recording from there.</p>' : ''}
<ol class="segments">
${segments || '<li>No speech was found.</li>'}
</ol>
${redactionSummary(answer)}<h3>Language runs</h3>
${languageRuns(answer)}
<h3>Vocabulary</h3>
${vocabularyAudit(answer.vocabulary)}
<details><summary>The API's answer (verbose_json)</summary><pre class="answer" tabindex="0">${e(JSON.stringify(answer, null, 2))}</pre></details>`;
}

/** With redact: how many of each class were removed (never what). */
function redactionSummary(answer: VerboseAnswer): string {
  if (!answer.redaction_counts) return '';
  const counts = Object.entries(answer.redaction_counts).map(([type, n]) => `${e(type)} ${n}`);
  return `<p>Redacted: ${counts.length ? counts.join(', ') : 'nothing found'}.</p>\n`;
}

function wordButton(word: Word): string {
  return `<button type="button" class="word" data-start="${word.start}">${e(word.word.trim())} <span class="time">${word.start.toFixed(2)}</span></button>`;
}

/** `speaker-1` ... in order of first appearance; `speaker-unknown` for passages left unlabelled. */
function speakerColours(answer: VerboseAnswer): (speaker: string) => string {
  const order = [...new Set([...answer.speakers.map((s) => s.speaker), ...answer.segments.map((s) => s.speaker)])].filter((s) => s !== 'unknown');
  return (speaker) => (order.includes(speaker) ? `speaker-${(order.indexOf(speaker) % SPEAKER_COLOURS) + 1}` : 'speaker-unknown');
}

/** Each word goes with the segment its start falls in (segments are in time order, words too). */
function groupWords(segments: readonly Segment[], words: readonly Word[]): Word[][] {
  const groups: Word[][] = segments.map(() => []);
  let at = 0;
  for (const word of words) {
    while (at < segments.length - 1 && word.start >= segments[at].end) at++;
    if (segments.length) groups[at].push(word);
  }
  return groups;
}

/** Consecutive segments of one language, as runs with their times; detection's summary when it ran. */
function languageRuns(answer: VerboseAnswer): string {
  const runs: Array<{ language: string; start: number; end: number; segments: number }> = [];
  for (const segment of answer.segments) {
    const language = segment.language ?? answer.language;
    const last = runs.at(-1);
    if (last && last.language === language) {
      last.end = segment.end;
      last.segments++;
    } else runs.push({ language, start: segment.start, end: segment.end, segments: 1 });
  }
  const items = runs.map((r) => `<li>${e(r.language)}: ${seconds(r.start)} to ${seconds(r.end)} (${r.segments} segment${r.segments === 1 ? '' : 's'})</li>`);
  const detection = 'language_detection' in answer ? answer.language_detection : undefined;
  const detected = detection
    ? `<p>Detected per utterance among ${e(detection.candidates.join(', '))}: ${e(detection.languages.join(', ') || 'none')}
in ${detection.utterances} utterance${detection.utterances === 1 ? '' : 's'}.</p>`
    : '';
  return `${detected}${items.length ? `<ol>${items.join('')}</ol>` : '<p>None: no speech.</p>'}`;
}

/** The audit block said plainly: what was asked, delivered, corrected, left unresolved, and whether the safety check fell back. */
function vocabularyAudit(audit: Audit): string {
  if (!audit.enabled) return '<p>No vocabulary: none was sent, and the key has no stored terms for this language (or they were left out).</p>';
  const mode = audit.mode === 'retrieval' ? 'more than 50, so the 50 most relevant were prompted for each window' : 'all prompted';
  const corrections = audit.corrections.map((c) => `“${e(c.term)}” for “${e(c.replaced)}” at ${seconds(c.start)}`);
  const reasons = Object.entries(audit.fallback_reasons).map(([reason, count]) => `${e(reason)} ${count}`);
  const because = reasons.length ? ` (${reasons.join(', ')})` : '';
  const fallback = audit.safety_fallback
    ? `Yes: ${audit.fallback_chunks} of ${audit.prompted_chunks} window${audit.prompted_chunks === 1 ? '' : 's'} changed a number, dose, negation,
laterality or the structure when prompted, so ${audit.fallback_chunks === 1 ? 'it keeps' : 'they keep'} the text decoded without the terms${because}.`
    : 'No: the prompted text passed the safety check.';
  return `<dl class="audit">
<dt>Terms</dt><dd>${audit.requested_terms} (${audit.request_terms} sent, ${audit.dictionary_terms} from the key's dictionary); ${mode}.</dd>
<dt>Delivered</dt><dd>${list(audit.delivered_terms)}</dd>
<dt>Corrected</dt><dd>${corrections.length ? corrections.join('; ') : 'none'}</dd>
<dt>Unresolved</dt><dd>${list(audit.unresolved_terms)}</dd>
<dt>Safety fallback</dt><dd>${fallback}</dd>
${audit.suspect_terms.length ? `<dt>Suspect insertions</dt><dd>${list(audit.suspect_terms)} (printed with low confidence; kept)</dd>` : ''}
${audit.dropped.length ? `<dt>Stored terms not used</dt><dd>${audit.dropped.length}</dd>` : ''}
</dl>`;
}
