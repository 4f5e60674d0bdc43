// Our ONNX -> ggml Silero converter against whisper.cpp's official conversions of the same releases:
// tensor by tensor first (so a failure names the tensor), then the whole file byte for byte.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import tap from 'tap';

import { float32ToFloat16Bits } from '../../src/models/float16.js';
import { graphWeights, OnnxModelError, readOnnxGraph } from '../../src/models/onnx-model.js';
import { bytesValue, messageFields, stringValue } from '../../src/models/protobuf-reader.js';
import { convertSileroOnnxToGgml, parseSileroVersion, SileroConversionError } from '../../src/models/silero-ggml-converter.js';
import { readVadModelHeader, type VadModelHeader } from '../../src/models/vad-model-header.js';
import { SILERO_ORACLES_MISSING, sileroOracles } from '../helpers/silero-oracles.js';

const dir = await mkdtemp(join(tmpdir(), 'svc-silero-converter-'));
tap.teardown(() => rm(dir, { recursive: true, force: true }));

async function converted(onnxPath: string, version: string): Promise<{ path: string; bytes: Buffer }> {
  const bytes = convertSileroOnnxToGgml(await readFile(onnxPath), parseSileroVersion(version));
  const path = join(dir, `converted-${version}.bin`);
  await writeFile(path, bytes);
  return { path, bytes };
}

/** Same names, shapes, types and order in both files; then each tensor's data, bit for bit. */
interface ReadFile {
  header: VadModelHeader;
  bytes: Buffer;
}

function sameTensors(t: Pick<typeof tap, 'same' | 'ok'>, ours: ReadFile, official: ReadFile) {
  t.same(
    ours.header.tensors.map(({ name, ne, type }) => ({ name, ne, type })),
    official.header.tensors.map(({ name, ne, type }) => ({ name, ne, type })),
    'tensor names, shapes, types and order',
  );
  for (const [i, tensor] of official.header.tensors.entries()) {
    const mine = ours.header.tensors[i];
    const data = (file: ReadFile, at: { offset: number; bytes: number }) => file.bytes.subarray(at.offset, at.offset + at.bytes);
    t.ok(data(ours, mine).equals(data(official, tensor)), `${tensor.name} (${tensor.type}) bit-equal`);
  }
}

for (const { release, onnx, official, officialVersion } of [
  { release: '5.1.2', onnx: sileroOracles.onnxV5, official: sileroOracles.officialGgmlV5, officialVersion: '5.1.2' },
  { release: '6.2.1', onnx: sileroOracles.onnxV6, official: sileroOracles.officialGgmlV6, officialVersion: '6.2.0' },
]) {
  tap.test(`ONNX ${release} gives the tensors of whisper.cpp's ggml ${officialVersion}`, { skip: SILERO_ORACLES_MISSING }, async (t) => {
    const ours = await converted(onnx(), release);
    const officialBytes = await readFile(official());
    const oursHeader = await readVadModelHeader(ours.path);
    const officialHeader = await readVadModelHeader(official());
    t.match(oursHeader, { modelType: 'silero-16k', version: release, windowSamples: 512, contextSamples: 64, fileSize: officialBytes.length });
    t.equal(oursHeader.tensors.length, 15);
    sameTensors(t, { header: oursHeader, bytes: ours.bytes }, { header: officialHeader, bytes: officialBytes });
  });
}

tap.test('byte-identical to the official files', { skip: SILERO_ORACLES_MISSING }, async (t) => {
  const v5 = await converted(sileroOracles.onnxV5(), '5.1.2');
  t.ok(v5.bytes.equals(await readFile(sileroOracles.officialGgmlV5())), 'v5.1.2: the whole file');

  // whisper.cpp published v6.2.0; the npm carrier holds v6.2.1, whose 16 kHz weights are the same.
  // Our file says 6.2.1, so it differs in the version's patch field alone...
  const v6 = await converted(sileroOracles.onnxV6(), '6.2.1');
  const official = await readFile(sileroOracles.officialGgmlV6());
  const patchField = 8 + 'silero-16k'.length + 2 * 4;
  const differing = [...v6.bytes.keys()].filter((i) => v6.bytes[i] !== official[i]);
  t.equal(v6.bytes.length, official.length);
  t.same(differing, [patchField], 'only the low byte of the patch version differs');
  t.equal(v6.bytes.readInt32LE(patchField), 1);
  t.equal(official.readInt32LE(patchField), 0);
  // ...and declared as 6.2.0 it is the official file exactly.
  const as620 = convertSileroOnnxToGgml(await readFile(sileroOracles.onnxV6()), parseSileroVersion('6.2.0'));
  t.ok(as620.equals(official), 'v6.2.1 weights labelled 6.2.0: the whole file');
});

tap.test('f16 tensors are the ONNX values rounded to f16, f32 tensors the ONNX values', { skip: SILERO_ORACLES_MISSING }, async (t) => {
  // Independent of the converter's writer: the official file against the ONNX Constants directly.
  const official = await readFile(sileroOracles.officialGgmlV6());
  const header = await readVadModelHeader(sileroOracles.officialGgmlV6());
  const weights = [...graphWeights(readOnnxGraph(await readFile(sileroOracles.onnxV6())))].filter((w) => w.scope === 'If_0/then_branch');
  for (const tensor of header.tensors) {
    const key = tensor.name.replace(/^_model\./, '');
    const onnx = weights.find((w) => w.tensor.name.endsWith(`__${key}`))!.tensor.floats();
    const data = official.subarray(tensor.offset, tensor.offset + tensor.bytes);
    const mismatches = [...onnx.keys()].filter((i) =>
      tensor.type === 'f16' ? data.readUInt16LE(2 * i) !== float32ToFloat16Bits(onnx[i]) : data.readFloatLE(4 * i) !== onnx[i],
    ).length;
    t.equal(mismatches, 0, `${tensor.name}: ${onnx.length} values`);
  }
});

tap.test('refuses what is not a Silero VAD ONNX model', { skip: SILERO_ORACLES_MISSING }, async (t) => {
  const onnx = await readFile(sileroOracles.onnxV6());
  const v621 = parseSileroVersion('6.2.1');
  t.throws(() => convertSileroOnnxToGgml(onnx.subarray(0, onnx.length / 2), v621), OnnxModelError, 'a truncated file');
  const official = await readFile(sileroOracles.officialGgmlV6());
  t.throws(() => convertSileroOnnxToGgml(official, v621), OnnxModelError, 'a ggml file');
  // Well-formed ONNX without the weights: a ModelProto whose graph (field 7) is empty.
  const emptyGraphModel = Buffer.from([0x3a, 0x00]);
  t.throws(() => convertSileroOnnxToGgml(emptyGraphModel, v621), SileroConversionError, 'an empty graph');
  t.throws(
    () => convertSileroOnnxToGgml(eightKilohertzOnly(onnx), v621),
    { name: 'SileroConversionError', message: /missing _model\.encoder\.0\.reparam_conv\.weight.*other shapes/ },
    'the 8 kHz model alone',
  );
  t.throws(() => parseSileroVersion('6.2'), SileroConversionError, 'a version without its patch number');
});

/** A model whose only graph is the real file's else (8 kHz) branch, under an If node as in the original. */
function eightKilohertzOnly(onnx: Uint8Array): Buffer {
  const field = (message: Uint8Array, number: number) => [...messageFields(message)].filter((f) => f.number === number).map(bytesValue);
  const graph = field(onnx, 7)[0];
  const ifNode = field(graph, 1).find((node) => field(node, 4).some((op) => Buffer.from(op).toString() === 'If'))!;
  const elseBranch = field(ifNode, 5).find((a) => stringValue([...messageFields(a)].find((f) => f.number === 1)!) === 'else_branch')!;
  const attribute = Buffer.concat([lengthDelimited(1, Buffer.from('else_branch')), lengthDelimited(6, field(elseBranch, 6)[0])]);
  const node = Buffer.concat([lengthDelimited(4, Buffer.from('If')), lengthDelimited(5, attribute)]);
  return lengthDelimited(7, lengthDelimited(1, node));
}

function lengthDelimited(fieldNumber: number, bytes: Uint8Array): Buffer {
  return Buffer.concat([varint((fieldNumber << 3) | 2), varint(bytes.length), bytes]);
}

function varint(value: number): Buffer {
  const bytes: number[] = [];
  for (; value >= 0x80; value = Math.floor(value / 128)) bytes.push((value & 0x7f) | 0x80);
  bytes.push(value);
  return Buffer.from(bytes);
}
