// TOTP (src/console/totp.ts) against the published test vectors: RFC 6238 appendix B (SHA-1, 8 digits)
// and RFC 4226 appendix D (the HOTP values of counters 0-9, 6 digits); the drift window; base32 (RFC
// 4648's vectors) and the otpauth:// URI.
import t from 'tap';

import { base32, fromBase32, matchingTotpStep, otpauthUri, totpCode, totpStep } from '../../src/console/totp.js';

const RFC_SECRET = Buffer.from('12345678901234567890', 'ascii');

t.test('RFC 6238 appendix B, SHA-1: the 8-digit codes at the published times', async (t) => {
  const vectors: Array<[number, string]> = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ];
  for (const [seconds, code] of vectors) t.equal(totpCode(RFC_SECRET, totpStep(seconds * 1000), 8), code, `T = ${seconds}`);
});

t.test('RFC 4226 appendix D: counters 0-9, 6 digits', async (t) => {
  const codes = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
  t.same(
    codes.map((_, counter) => totpCode(RFC_SECRET, counter)),
    codes,
  );
});

t.test('a code matches its step and the steps either side of it, no further; what matched is said', async (t) => {
  const now = 1_111_111_111_000;
  const step = totpStep(now);
  t.equal(matchingTotpStep(RFC_SECRET, totpCode(RFC_SECRET, step), now), step);
  t.equal(matchingTotpStep(RFC_SECRET, totpCode(RFC_SECRET, step - 1), now), step - 1, 'the step before (a code typed as it ended)');
  t.equal(matchingTotpStep(RFC_SECRET, totpCode(RFC_SECRET, step + 1), now), step + 1, 'the step after (a clock ahead)');
  t.equal(matchingTotpStep(RFC_SECRET, totpCode(RFC_SECRET, step - 2), now), null, 'two steps off: refused');
  t.equal(matchingTotpStep(RFC_SECRET, totpCode(RFC_SECRET, step + 2), now), null);
  const spaced = totpCode(RFC_SECRET, step).replace(/^(\d{3})/, '$1 ');
  t.equal(matchingTotpStep(RFC_SECRET, spaced, now), step, 'a space typed in the middle is ignored');
  for (const typed of ['', '12345', '1234567', 'abcdef']) t.equal(matchingTotpStep(RFC_SECRET, typed, now), null, `refused: ${JSON.stringify(typed)}`);
  t.equal(matchingTotpStep(Buffer.from('another secret of 20b'), totpCode(RFC_SECRET, step), now), null, "another secret's code");
});

t.test('base32: RFC 4648 section 10 (unpadded), both ways; the otpauth URI', async (t) => {
  const vectors: Array<[string, string]> = [
    ['', ''],
    ['f', 'MY'],
    ['fo', 'MZXQ'],
    ['foo', 'MZXW6'],
    ['foob', 'MZXW6YQ'],
    ['fooba', 'MZXW6YTB'],
    ['foobar', 'MZXW6YTBOI'],
  ];
  for (const [plain, encoded] of vectors) {
    t.equal(base32(Buffer.from(plain)), encoded, `base32(${JSON.stringify(plain)})`);
    t.equal(fromBase32(encoded.toLowerCase()).toString(), plain);
  }
  t.equal(base32(RFC_SECRET), 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
  t.same(fromBase32('GEZD GNBV GY3T QOJQ GEZD GNBV GY3T QOJQ'), RFC_SECRET, 'spaces ignored');
  t.throws(() => fromBase32('GEZ1'), /not a base32 character/);
  const uri = new URL(otpauthUri(RFC_SECRET, 'svc-stt', 'dr.lee@clinic.example'));
  t.equal(uri.protocol, 'otpauth:');
  t.equal(uri.host, 'totp');
  t.equal(decodeURIComponent(uri.pathname), '/svc-stt:dr.lee@clinic.example', 'issuer:account');
  t.same(Object.fromEntries(uri.searchParams), {
    secret: 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ',
    issuer: 'svc-stt',
    algorithm: 'SHA1',
    digits: '6',
    period: '30',
  });
});
