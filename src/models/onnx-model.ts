// The parts of an ONNX model (onnx.proto3, IR version 3 and later) that carry weights: the graph's
// initializers and its Constant nodes, including those inside control-flow subgraphs (an `If` node's
// then/else branches, a `Loop` body), where exporters such as torch.onnx put the weights of one branch.
// Field numbers are ONNX's; fields not listed here (types, shapes, docs, metadata) are skipped.
import { appendFloats, appendInt64s, bytesValue, int64Value, messageFields, ProtobufError, stringValue } from './protobuf-reader.js';

export class OnnxModelError extends Error {
  override readonly name = 'OnnxModelError';
}

/** TensorProto.DataType.FLOAT, the one type this reader decodes (weights; other types are shapes and indices). */
export const ONNX_FLOAT = 1;

export interface OnnxTensor {
  readonly name: string;
  readonly dims: readonly number[];
  readonly dataType: number;
  /** The values as little-endian float32 (only for FLOAT tensors). */
  floats(): Float32Array;
}

export interface OnnxAttribute {
  readonly name: string;
  readonly tensor?: OnnxTensor;
  readonly graphs: readonly OnnxGraph[];
}

export interface OnnxNode {
  readonly name: string;
  readonly opType: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attributes: readonly OnnxAttribute[];
}

export interface OnnxGraph {
  readonly name: string;
  readonly nodes: readonly OnnxNode[];
  readonly initializers: readonly OnnxTensor[];
}

/** A weight as found in the model, with the chain of nodes and branches that leads to its graph. */
export interface OnnxWeight {
  readonly tensor: OnnxTensor;
  /** '' for the main graph; e.g. 'If_25/then_branch' for a Constant inside an If node's then branch. */
  readonly scope: string;
}

const Model = { graph: 7 } as const;
const Graph = { node: 1, name: 2, initializer: 5 } as const;
const Node = { input: 1, output: 2, name: 3, opType: 4, attribute: 5 } as const;
const Attribute = { name: 1, t: 5, g: 6, graphs: 11 } as const;
const Tensor = { dims: 1, dataType: 2, floatData: 4, name: 8, rawData: 9, externalData: 13, dataLocation: 14 } as const;
/** TensorProto.DataLocation.EXTERNAL: the values live in a side file, which a single-file model never has. */
const EXTERNAL_DATA_LOCATION = 1;

export function readOnnxGraph(model: Uint8Array): OnnxGraph {
  let graph: OnnxGraph | undefined;
  try {
    for (const field of messageFields(model)) {
      if (field.number === Model.graph) graph = readGraph(bytesValue(field));
    }
  } catch (error) {
    if (error instanceof ProtobufError) throw new OnnxModelError(`not an ONNX model (${error.message})`, { cause: error });
    throw error;
  }
  if (!graph) throw new OnnxModelError('not an ONNX model: no graph');
  return graph;
}

/** Every initializer and Constant node value of the graph and, depth first, of its subgraphs. */
export function* graphWeights(graph: OnnxGraph, scope = ''): Generator<OnnxWeight> {
  for (const tensor of graph.initializers) yield { tensor, scope };
  for (const node of graph.nodes) {
    if (node.opType === 'Constant') {
      const value = node.attributes.find((a) => a.name === 'value')?.tensor;
      // Constant's scalar forms (value_float, value_ints, ...) hold no weights; only `value` does.
      if (value) yield { tensor: { ...value, name: node.outputs[0] ?? value.name }, scope };
    }
    for (const attribute of node.attributes) {
      for (const subgraph of attribute.graphs) {
        const path = `${node.name || node.opType}/${attribute.name}`;
        yield* graphWeights(subgraph, scope ? `${scope}/${path}` : path);
      }
    }
  }
}

function readGraph(bytes: Uint8Array): OnnxGraph {
  let name = '';
  const nodes: OnnxNode[] = [];
  const initializers: OnnxTensor[] = [];
  for (const field of messageFields(bytes)) {
    if (field.number === Graph.node) nodes.push(readNode(bytesValue(field)));
    else if (field.number === Graph.name) name = stringValue(field);
    else if (field.number === Graph.initializer) initializers.push(readTensor(bytesValue(field)));
  }
  return { name, nodes, initializers };
}

function readNode(bytes: Uint8Array): OnnxNode {
  let name = '';
  let opType = '';
  const inputs: string[] = [];
  const outputs: string[] = [];
  const attributes: OnnxAttribute[] = [];
  for (const field of messageFields(bytes)) {
    if (field.number === Node.input) inputs.push(stringValue(field));
    else if (field.number === Node.output) outputs.push(stringValue(field));
    else if (field.number === Node.name) name = stringValue(field);
    else if (field.number === Node.opType) opType = stringValue(field);
    else if (field.number === Node.attribute) attributes.push(readAttribute(bytesValue(field)));
  }
  return { name, opType, inputs, outputs, attributes };
}

function readAttribute(bytes: Uint8Array): OnnxAttribute {
  let name = '';
  let tensor: OnnxTensor | undefined;
  const graphs: OnnxGraph[] = [];
  for (const field of messageFields(bytes)) {
    if (field.number === Attribute.name) name = stringValue(field);
    else if (field.number === Attribute.t) tensor = readTensor(bytesValue(field));
    else if (field.number === Attribute.g || field.number === Attribute.graphs) graphs.push(readGraph(bytesValue(field)));
  }
  return { name, tensor, graphs };
}

function readTensor(bytes: Uint8Array): OnnxTensor {
  let name = '';
  let dataType = 0;
  const dims: number[] = [];
  const floatData: number[] = [];
  let rawData: Uint8Array | undefined;
  let external = false;
  for (const field of messageFields(bytes)) {
    if (field.number === Tensor.dims) appendInt64s(field, dims);
    else if (field.number === Tensor.dataType) dataType = int64Value(field);
    else if (field.number === Tensor.floatData) appendFloats(field, floatData);
    else if (field.number === Tensor.name) name = stringValue(field);
    else if (field.number === Tensor.rawData) rawData = bytesValue(field);
    else if (field.number === Tensor.externalData) external = true;
    else if (field.number === Tensor.dataLocation) external ||= int64Value(field) === EXTERNAL_DATA_LOCATION;
  }
  const elements = dims.reduce((product, d) => product * d, 1);
  return {
    name,
    dims,
    dataType,
    floats(): Float32Array {
      if (dataType !== ONNX_FLOAT) throw new OnnxModelError(`tensor '${name}' has data type ${dataType}, not FLOAT`);
      if (external) throw new OnnxModelError(`tensor '${name}' keeps its values in an external file`);
      if (rawData) {
        if (rawData.length !== elements * 4) {
          throw new OnnxModelError(`tensor '${name}' of shape [${dims}] holds ${rawData.length} bytes, expected ${elements * 4}`);
        }
        // Read through a DataView: raw_data is little-endian and rarely 4-byte aligned inside the file.
        const view = new DataView(rawData.buffer, rawData.byteOffset, rawData.byteLength);
        return Float32Array.from({ length: elements }, (_, i) => view.getFloat32(4 * i, true));
      }
      if (floatData.length !== elements) {
        throw new OnnxModelError(`tensor '${name}' of shape [${dims}] holds ${floatData.length} values, expected ${elements}`);
      }
      return Float32Array.from(floatData);
    },
  };
}
