// The `srt` and `vtt` response formats: one cue per transcript segment, with the segment's speaker as
// a voice when speakers were attached (WebVTT's `<v A>` voice span; SubRip has none, so `A: ` leads
// the text). A segment nobody is attributed to has no voice. Times are the segments' own.
import { UNATTRIBUTED_SPEAKER } from '../pipeline/speaker-attachment.js';
import type { ResponseFormat } from './request-fields.js';

export interface SubtitleCue {
  start: number;
  end: number;
  text: string;
  speaker?: string | null;
}

/** The formats whose answer is the segments as subtitles. */
export const SUBTITLE_FORMATS = ['srt', 'vtt'] as const satisfies readonly ResponseFormat[];
export type SubtitleFormat = (typeof SUBTITLE_FORMATS)[number];

export function isSubtitleFormat(format: ResponseFormat): format is SubtitleFormat {
  return (SUBTITLE_FORMATS as readonly ResponseFormat[]).includes(format);
}

/** OpenAI answers both as plain text; WebVTT has a media type of its own. */
const CONTENT_TYPES: Readonly<Record<SubtitleFormat, string>> = {
  srt: 'text/plain; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8',
};

export function subtitles(format: SubtitleFormat, cues: readonly SubtitleCue[]): { contentType: string; body: string } {
  const kept = cues.map((c) => ({ ...c, text: c.text.replace(/\s+/g, ' ').trim() })).filter((c) => c.text !== '');
  const vttCue = (c: SubtitleCue) =>
    `${timestamp(c.start, '.')} --> ${timestamp(c.end, '.')}\n${voiceOf(c) ? `<v ${escapeVtt(voiceOf(c)!)}>` : ''}${escapeVtt(c.text)}\n`;
  const body =
    format === 'srt'
      ? kept.map((c, i) => `${i + 1}\n${timestamp(c.start, ',')} --> ${timestamp(c.end, ',')}\n${voiceOf(c) ? `${voiceOf(c)}: ` : ''}${c.text}\n`).join('\n')
      : `WEBVTT\n\n${kept.map((c) => vttCue(c)).join('\n')}`;
  return { contentType: CONTENT_TYPES[format], body };
}

function voiceOf(cue: SubtitleCue): string | null {
  return cue.speaker && cue.speaker !== UNATTRIBUTED_SPEAKER ? cue.speaker : null;
}

/** HH:MM:SS,mmm (SubRip) or HH:MM:SS.mmm (WebVTT). */
function timestamp(seconds: number, separator: ',' | '.'): string {
  const ms = Math.max(0, Math.round(seconds * 1000));
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000), 2)}:${pad(Math.floor(ms / 60_000) % 60, 2)}:${pad(Math.floor(ms / 1000) % 60, 2)}${separator}${pad(ms % 1000, 3)}`;
}

/** WebVTT cue text may not hold a raw `&`, `<` or `>` (nor, therefore, `-->`). */
function escapeVtt(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
