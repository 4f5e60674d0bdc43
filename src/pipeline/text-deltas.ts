// The transcript's text as it grows, told as deltas (a streamed answer's `transcript.text.delta`).
// Whoever decodes says what the whole text is so far, in the final text's own terms (the parts that
// will be joined with spaces); a delta is what was added since. Text once told is never taken back:
// if the text so far stops extending what was told (it cannot with the pipeline's own joins, but
// this is what keeps the stream honest if it ever did), nothing more is told, and the final answer
// carries the whole text.
export type TextDelta = (delta: string) => void;

/**
 * A finished text told as deltas, one per segment: each delta runs to the end of the next segment's
 * text where the text has it, and the last one holds whatever remains, so the deltas always add up to
 * `text` exactly. For a text that is whole before anything of it may be told (formatted or redacted:
 * the live text is what those change).
 */
export function segmentDeltas(text: string, segmentTexts: readonly string[]): string[] {
  const deltas: string[] = [];
  let told = 0;
  for (const segment of segmentTexts) {
    const words = segment.trim();
    if (words === '') continue;
    const at = text.indexOf(words, told);
    if (at < 0) continue;
    deltas.push(text.slice(told, at + words.length));
    told = at + words.length;
  }
  if (told < text.length) deltas.push(text.slice(told));
  return deltas;
}

export class TextDeltas {
  private told = '';
  private diverged = false;

  constructor(private readonly onDelta: TextDelta) {}

  /** The text so far as its non-empty parts, in order (joined with one space, as the final text is). */
  show(parts: readonly string[]): void {
    if (this.diverged) return;
    const text = parts.filter((p) => p !== '').join(' ');
    if (!text.startsWith(this.told)) {
      this.diverged = true;
      return;
    }
    if (text.length === this.told.length) return;
    const delta = text.slice(this.told.length);
    this.told = text;
    this.onDelta(delta);
  }
}
