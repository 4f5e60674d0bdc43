// POST /v1/uploads/{job_id}: the presigned form of a fresh job, posted as issued or with one field
// dropped, changed, duplicated or added, the signature flipped, the file of the wrong size, in the
// wrong place or twice — and the same multipart syntax faults as the direct route. The route is
// public (the signed form is the authority) and answers errors in S3's XML.
import fc from 'fast-check';

import { FORM_FIELDS } from '../../../../src/jobs/upload-policy.js';
import { type AuthChoice, type CaseSpec, type FileChoice, type FilePart, type FormFieldsPart, framing, type PartSpec } from '../case-spec.js';
import { extraHeaders, hostileId, hostileText } from '../hostile-values.js';
import { multipartShape, withParts } from './multipart-shape.js';
import { CANARY_FILENAME_PREFIX } from './transcription-cases.js';

export const UPLOADS = 'POST /v1/uploads/{job_id}';

const fieldIndex = fc.nat({ max: FORM_FIELDS.length - 1 });

const formMutation: fc.Arbitrary<FormFieldsPart['mutation']> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'as-issued' as const }) },
  { weight: 1, arbitrary: fieldIndex.map((field) => ({ kind: 'drop' as const, field })) },
  { weight: 2, arbitrary: fc.tuple(fieldIndex, hostileText).map(([field, value]) => ({ kind: 'change' as const, field, value })) },
  { weight: 1, arbitrary: fieldIndex.map((field) => ({ kind: 'duplicate' as const, field })) },
  { weight: 1, arbitrary: fc.tuple(hostileText, hostileText).map(([name, value]) => ({ kind: 'extra' as const, name, value })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'flip-signature' as const }) },
);

const file = (choice: FileChoice): FilePart => ({
  kind: 'file',
  name: 'file',
  filename: `${CANARY_FILENAME_PREFIX}-upload.wav`,
  contentType: 'audio/wav',
  file: choice,
});

const layout: fc.Arbitrary<{ label: string; parts: (form: FormFieldsPart) => PartSpec[] }> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ label: 'fields then file', parts: (form: FormFieldsPart) => [form, file('job-exact')] }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<FileChoice>('job-plus-one', 'job-minus-one', 'empty', 'speech', 'random').map((choice) => ({
      label: `file ${choice}`,
      parts: (form: FormFieldsPart) => [form, file(choice)],
    })),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      { label: 'file first', parts: (form: FormFieldsPart) => [file('job-exact'), form] },
      { label: 'two files', parts: (form: FormFieldsPart) => [form, file('job-exact'), file('job-exact')] },
      { label: 'no file', parts: (form: FormFieldsPart) => [form] },
      { label: 'file under another name', parts: (form: FormFieldsPart) => [form, { ...file('job-exact'), name: 'upload' }] },
      {
        label: '20 extra fields',
        parts: (form: FormFieldsPart) => [
          ...Array.from({ length: 20 }, (_, i) => ({ kind: 'field' as const, name: `x${i}`, value: 'x' })),
          form,
          file('job-exact'),
        ],
      },
      {
        label: 'huge field',
        parts: (form: FormFieldsPart) => [{ kind: 'field' as const, name: 'x', value: { repeat: 'A', count: 20_000 } }, form, file('job-exact')],
      },
    ),
  },
);

export const uploadCase: fc.Arbitrary<CaseSpec> = fc
  .record({
    id: fc.oneof({ weight: 5, arbitrary: fc.constant('{job}') }, { weight: 1, arbitrary: hostileId }),
    mutation: formMutation,
    layout,
    shape: multipartShape,
    // Public route: a key is neither needed nor looked at, but clients send one anyway.
    auth: fc.constantFrom<AuthChoice>('none', 'none', 'valid', 'malformed'),
    headers: extraHeaders,
    framing,
  })
  .map(({ id, mutation, layout, shape, auth, headers, framing }) => ({
    route: UPLOADS,
    mutation: `form ${mutation.kind}; ${layout.label}; ${shape.label}${id === '{job}' ? '' : '; hostile id'}`,
    auth,
    // A job exists even for a hostile id, so that the form is a real one sent to the wrong place.
    job: 'fresh',
    method: 'POST',
    target: `/v1/uploads/${id}`,
    headers,
    body: withParts(shape, layout.parts({ kind: 'form-fields', mutation })),
    framing,
  }));
