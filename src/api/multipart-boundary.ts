// The boundary of a multipart/form-data request, checked before a parser sees it. RFC 2046 5.1.1:
//   boundary := 0*69<bchars> bcharsnospace        (so 1 to 70 characters, not ending in a space)
//   bchars := bcharsnospace / " "
//   bcharsnospace := DIGIT / ALPHA / "'" / "(" / ")" / "+" / "_" / "," / "-" / "." / "/" / ":" / "=" / "?"
// busboy accepts anything up to 256 characters and throws a plain Error above that (which became a 500);
// every real client stays far below 70 (curl 40, browsers 38-40, Go 60).
// The Content-Type parameters are read as RFC 9110 writes them (token or quoted-string values);
// a header whose parameters cannot be read, or that names the boundary twice, has no valid boundary.

/** RFC 9110 token characters (parameter names and unquoted values). */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[^"\\\\]|\\\\.)*"';
const MEDIA_TYPE = new RegExp(`^[ \\t]*${TOKEN}/${TOKEN}[ \\t]*`);
const PARAMETER = new RegExp(`;[ \\t]*(?:(${TOKEN})[ \\t]*=[ \\t]*(${TOKEN}|${QUOTED})[ \\t]*)?`, 'y');
const RFC2046_BOUNDARY = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;

/** The boundary when the header carries exactly one valid boundary parameter; null otherwise. */
export function multipartBoundary(contentType: string | undefined): string | null {
  if (contentType === undefined) return null;
  const type = MEDIA_TYPE.exec(contentType);
  if (!type) return null;
  let boundary: string | null = null;
  let seen = 0;
  PARAMETER.lastIndex = type[0].length;
  while (PARAMETER.lastIndex < contentType.length) {
    const start = PARAMETER.lastIndex;
    const parameter = PARAMETER.exec(contentType);
    // Something that is not a parameter (or an empty `;`, which is tolerated only if it advances).
    if (!parameter || PARAMETER.lastIndex === start) return null;
    if (parameter[1]?.toLowerCase() !== 'boundary') continue;
    seen += 1;
    const raw = parameter[2];
    boundary = raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw;
  }
  return seen === 1 && boundary !== null && RFC2046_BOUNDARY.test(boundary) ? boundary : null;
}
