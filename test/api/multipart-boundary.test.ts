// multipartBoundary: RFC 2046's boundary (1 to 70 bchars, no trailing space) out of a Content-Type
// header read as RFC 9110 writes parameters (token or quoted-string), exactly one boundary.
import t from 'tap';

import { multipartBoundary } from '../../src/api/multipart-boundary.js';

const FORM = 'multipart/form-data';

t.test('what real clients send is read as they mean it', async (t) => {
  t.equal(multipartBoundary(`${FORM}; boundary=----formdata-undici-032518237452`), '----formdata-undici-032518237452');
  t.equal(multipartBoundary(`${FORM}; boundary=------------------------d74496d66958873e`), '------------------------d74496d66958873e');
  t.equal(multipartBoundary(`${FORM};boundary=abc;`), 'abc', 'no space, a trailing semicolon');
  t.equal(multipartBoundary(`${FORM}; charset=utf-8; boundary=abc`), 'abc', 'other parameters first');
  t.equal(multipartBoundary('Multipart/Form-Data; BOUNDARY=abc'), 'abc', 'names are case-insensitive');
  t.equal(multipartBoundary(`${FORM}; boundary="a b:c=d?e"`), 'a b:c=d?e', 'quoted, with space and separators');
  t.equal(multipartBoundary(`${FORM}; boundary=${'a'.repeat(70)}`), 'a'.repeat(70), '70 characters');
});

t.test('anything else has no valid boundary', async (t) => {
  const refused: Array<[string | undefined, string]> = [
    [undefined, 'no header'],
    [FORM, 'no boundary parameter'],
    [`${FORM}; boundary=${'a'.repeat(71)}`, '71 characters'],
    [`${FORM}; boundary=${'a'.repeat(257)}`, "over busboy's 256"],
    [`${FORM}; boundary=`, 'empty'],
    [`${FORM}; boundary=""`, 'empty, quoted'],
    [`${FORM}; boundary="abc "`, 'ends in a space'],
    [`${FORM}; boundary="a{b}"`, 'characters outside bchars'],
    [`${FORM}; boundary="a\u00e9"`, 'non-ASCII'],
    [`${FORM}; boundary=a; boundary=b`, 'two boundary parameters'],
    [`${FORM}; boundary=abc junk`, 'trailing text that is not a parameter'],
    [`${FORM}; boundary="abc`, 'an unterminated quoted string'],
  ];
  for (const [header, why] of refused) t.equal(multipartBoundary(header), null, why);
});
