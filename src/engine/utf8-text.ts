// whisper's tokens are byte strings: one token can carry half of a multi-byte UTF-8 character
// (accented and non-Latin letters in real models, any byte >= 0x80 in random ones). Text is built
// from the joined bytes, a split character is credited to the token that completes it, and bytes
// that never form a valid character are dropped rather than shown as U+FFFD.

/** Length of the UTF-8 sequence a lead byte starts, or 0 when it cannot start one. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

function validContinuation(lead: number, index: number, byte: number): boolean {
  if ((byte & 0xc0) !== 0x80) return false;
  if (index !== 1) return true;
  // Second-byte ranges exclude overlongs, surrogates and code points above U+10FFFF.
  if (lead === 0xe0) return byte >= 0xa0;
  if (lead === 0xed) return byte <= 0x9f;
  if (lead === 0xf0) return byte >= 0x90;
  if (lead === 0xf4) return byte <= 0x8f;
  return true;
}

/** Incremental decoder: push byte chunks, get the text each chunk completes. */
export class Utf8Assembler {
  private pending: number[] = [];

  push(bytes: Uint8Array): string {
    let out = '';
    for (const byte of bytes) out += this.pushByte(byte);
    return out;
  }

  /** Drops an unfinished sequence (it can never complete) and resets. */
  flush(): void {
    this.pending = [];
  }

  private pushByte(byte: number): string {
    if (this.pending.length > 0) {
      const lead = this.pending[0];
      if (validContinuation(lead, this.pending.length, byte)) {
        this.pending.push(byte);
        if (this.pending.length === sequenceLength(lead)) {
          const text = Buffer.from(this.pending).toString('utf8');
          this.pending = [];
          return text;
        }
        return '';
      }
      // The sequence broke off: drop it and read this byte afresh.
      this.pending = [];
    }
    const length = sequenceLength(byte);
    if (length === 1) return String.fromCharCode(byte);
    if (length === 0) return '';
    this.pending.push(byte);
    return '';
  }
}

/** Decodes a whole byte string with the same rules (split sequences at the end are dropped). */
export function decodeTokenBytes(bytes: Uint8Array): string {
  return new Utf8Assembler().push(bytes);
}
