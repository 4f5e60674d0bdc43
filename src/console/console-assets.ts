// The console's only assets, served by the console itself from its own origin (a self-hosted,
// offline service: no third-party origin, nothing fetched at run time): its style sheet, every
// page's small script module and the playground's scripts. Pages carry no inline script or style, so
// the CSP can forbid both. They are plain files in assets/console/ at the package's root (linted and
// formatted as browser code; shipped with the package and the image), read once when this module
// loads: two folders up from src/console/ (under tsx) and from dist/console/ (built) alike.
import { readFileSync } from 'node:fs';

const ASSETS = new URL('../../assets/console/', import.meta.url);

function asset(name: string): string {
  return readFileSync(new URL(name, ASSETS), 'utf8');
}

/** /assets/console.css: every page's style sheet. */
export const CONSOLE_CSS = asset('console.css');
/** /assets/console.js: every page's copy buttons; nothing else. */
export const CONSOLE_JS = asset('console.js');
/** /assets/playground.js: the playground's upload tab. */
export const PLAYGROUND_JS = asset('playground.js');
/** /assets/playground-realtime.js: the playground's realtime tab. */
export const PLAYGROUND_REALTIME_JS = asset('playground-realtime.js');
/** /assets/playground-microphone.js: the realtime tab's audio worklet (PCM16 at 16 kHz, 100 ms frames). */
export const MICROPHONE_WORKLET_JS = asset('playground-microphone.js');
