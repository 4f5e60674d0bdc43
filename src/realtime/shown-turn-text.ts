// What a realtime session shows of a turn's words when the start asked for smart_format or redact
// (docs/API.md "Smart format", "Redaction"; REALTIME.md). A turn_final is formatted, then redacted,
// before it is sent; its redactions take the turn's times (a turn has no word times here: wider,
// never short of the audio that said them). Partials are formatted too, but withheld while redacting
// (AssemblyAI's default): a partial is decoded from half a turn, where a name or number may be cut
// in two and slip past the detectors, and the turn_final comes a moment later.
import { redactText } from '../clinical-text/redact-text.js';
import { formatText } from '../clinical-text/smart-format.js';
import type { ClinicalTextFields } from '../contract/clinical-text-fields.js';
import type { LanguageFamily } from '../domain/language-families.js';
import type { RedactionReport } from '../pipeline/run-transcription.js';
import type { TurnText } from './realtime-events.js';

export class ShownTurnText {
  /** Every redaction sent so far, in session seconds: the final record's pattern spans are held to them. */
  readonly report: RedactionReport = { redactions: [], counts: {} };

  constructor(
    private readonly fields: ClinicalTextFields,
    private readonly family: LanguageFamily,
  ) {}

  get redacting(): boolean {
    return this.fields.redact !== null;
  }

  /** A partial's text as sent, or null: withheld. */
  partial(text: string): string | null {
    return this.redacting ? null : this.formatted(text);
  }

  /** A turn_final's text as sent, and what was redacted from it (null when not redacting). */
  final(turn: TurnText): { turn: TurnText; counts: RedactionReport['counts'] | null } {
    const text = this.formatted(turn.text);
    if (this.fields.redact === null) return { turn: { ...turn, text }, counts: null };
    const { text: shown, entities } = redactText(text, { policies: this.fields.redact, substitution: this.fields.redactSubstitution });
    const counts: RedactionReport['counts'] = {};
    for (const e of entities) {
      counts[e.type] = (counts[e.type] ?? 0) + 1;
      this.report.counts[e.type] = (this.report.counts[e.type] ?? 0) + 1;
      this.report.redactions.push({ type: e.type, start: turn.start, end: turn.end });
    }
    return { turn: { ...turn, text: shown }, counts };
  }

  private formatted(text: string): string {
    return this.fields.smartFormat && this.family === 'en' ? formatText(text, { language: this.family }).text : text;
  }
}
