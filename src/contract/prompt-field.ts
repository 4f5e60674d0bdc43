// OpenAI's `prompt` (a text to guide spelling and style): passed to whisper as its initial prompt ahead
// of the vocabulary terms, and under the same safety check (prompted-recognition.ts). whisper keeps the
// last 224 tokens of a prompt; MAX_PROMPT_CHARACTERS keeps a prompt within about that, so what is sent
// is what is used.
import { hasRefusedCharacter } from '../domain/refused-characters.js';
import { UnprocessableRequest } from '../pipeline/pipeline-errors.js';

export const MAX_PROMPT_CHARACTERS = 800;

/** null for an absent or blank prompt. */
export function parsePrompt(raw: unknown): string | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'string') throw new UnprocessableRequest('prompt must be a string');
  const prompt = raw.trim();
  if (prompt === '') return null;
  if ([...prompt].length > MAX_PROMPT_CHARACTERS) throw new UnprocessableRequest(`prompt is at most ${MAX_PROMPT_CHARACTERS} characters`);
  if (hasRefusedCharacter(prompt, true)) throw new UnprocessableRequest('prompt must not contain control or bidirectional control characters');
  return prompt;
}
