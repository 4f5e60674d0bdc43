// multipart/form-data bodies written by hand, so that every part of the syntax can be wrong on
// purpose: the boundary, the line endings, the part headers, the closing delimiter.
import type { Header } from './raw-http.js';

/** RFC 2046: a multipart boundary is 1 to 70 characters. */
export const MAX_BOUNDARY_LENGTH = 70;

export interface Part {
  /** `name` of Content-Disposition; null leaves the parameter out. */
  name: string | null;
  /** `filename` parameter; undefined leaves it out. */
  filename?: string;
  /** The part's Content-Type header; undefined leaves it out. */
  contentType?: string;
  /** Replaces the whole Content-Disposition header value when given. */
  disposition?: string;
  extraHeaders?: Header[];
  data: Buffer;
}

export interface MultipartShape {
  /** The boundary used in the body (the header may declare another one). */
  boundary: string;
  lineEnd: '\r\n' | '\n';
  /** How the body ends: properly, without the closing delimiter, or cut in the middle of the last part. */
  ending: 'proper' | 'unclosed' | 'cut';
  preamble?: string;
  epilogue?: string;
}

export function multipartBody(parts: Part[], shape: MultipartShape): Buffer {
  const { boundary, lineEnd: nl } = shape;
  const chunks: Buffer[] = [];
  if (shape.preamble) chunks.push(Buffer.from(shape.preamble + nl, 'latin1'));
  for (const part of parts) {
    const disposition =
      part.disposition ??
      ['form-data', part.name === null ? null : `name="${part.name}"`, part.filename === undefined ? null : `filename="${part.filename}"`]
        .filter((p) => p !== null)
        .join('; ');
    const headers: Header[] = [['Content-Disposition', disposition]];
    if (part.contentType !== undefined) headers.push(['Content-Type', part.contentType]);
    headers.push(...(part.extraHeaders ?? []));
    // Part headers travel as UTF-8, as browsers send non-ASCII field and file names.
    chunks.push(Buffer.from(`--${boundary}${nl}${headers.map(([n, v]) => `${n}: ${v}${nl}`).join('')}${nl}`, 'utf8'));
    chunks.push(part.data, Buffer.from(nl, 'latin1'));
  }
  if (shape.ending === 'proper') chunks.push(Buffer.from(`--${boundary}--${nl}${shape.epilogue ?? ''}`, 'latin1'));
  const body = Buffer.concat(chunks);
  if (shape.ending === 'cut') return body.subarray(0, Math.max(0, body.length - Math.ceil((parts.at(-1)?.data.length ?? 0) / 2) - nl.length));
  return body;
}
