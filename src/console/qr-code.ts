// QR codes drawn by the console itself, as inline SVG: the TOTP setup link as a code a phone's
// authenticator app scans, with no third-party origin. The `qrcode` package encodes (byte mode,
// error correction level M, the smallest version and the mask of the lowest penalty); this draws its
// modules as one path of squares, labelled for screen readers and with no style attribute (the
// console's CSP forbids them).
import { create } from 'qrcode';

import { escapeHtml as e } from './console-http.js';

/** The white margin around the code, in modules: the 4 the standard asks for. */
const QUIET_ZONE = 4;

/** The QR code of `text` as an inline SVG image named `label`. */
export function qrCodeSvg(text: string, label: string): string {
  const { modules } = create(text, { errorCorrectionLevel: 'M' });
  const size = modules.size + 2 * QUIET_ZONE;
  let path = '';
  for (let y = 0; y < modules.size; y++) {
    for (let x = 0; x < modules.size; x++) {
      if (modules.get(y, x)) path += `M${x + QUIET_ZONE} ${y + QUIET_ZONE}h1v1h-1z`;
    }
  }
  return (
    `<svg class="qr" role="img" aria-label="${e(label)}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges">` +
    `<rect width="${size}" height="${size}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`
  );
}
