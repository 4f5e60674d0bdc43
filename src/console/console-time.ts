// How console pages show an instant: UTC to the minute, in a <time> element that carries the exact
// ISO time (for a screen reader's or a script's use), so two people in different zones read the same.
import { escapeHtml as e } from './console-http.js';

export function timeText(at: number | string): string {
  const iso = new Date(at).toISOString();
  return `<time datetime="${e(iso)}">${e(`${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`)}</time>`;
}
