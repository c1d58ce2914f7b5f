/**
 * Rewrites the int8 MiniLM's graph at load so that its embedding tables stay int8 in memory.
 *
 * The model stores each weight W as int8 W_q with a float scale per row (embedding tables) or per output
 * column (MatMul weights), dequantised by graph nodes `W = Cast(W_q) * W_scale`. onnxruntime folds
 * those constants at load, so the session holds every weight as float: 88 MB, of which the 30,522-row
 * word table is 47 MB. A Gather reads a few rows of it, so the rewrite gathers the int8 rows and their
 * scales and dequantises only those (`Gather(W, ids)` becomes `Cast(Gather(W_q, ids)) * Gather(W_scale,
 * ids)`): the same float operations on the same values, so the vectors do not move by a bit, and the
 * table stays 11 MB.
 *
 * MatMuls keep their folded float weights. Measured and not kept: turning them into onnxruntime's
 * dynamic quantisation (DynamicQuantizeLinear + MatMulInteger, which it fuses into DynamicQuantizeMatMul)
 * made the native runtime ~1.7x faster (10-token query 3.0 ms instead of 5.2) but quantises activations
 * per tensor, moving vectors (cosine to the float ones: median 0.992, minimum 0.967 over 160 turns), and
 * a changed vector space re-embeds every stored memory.
 */

/** One protobuf field as read from the wire: varints as bigint, everything else as its bytes. */
interface Field {
  no: number;
  wire: number;
  value: bigint | Uint8Array;
}

function decode(buf: Uint8Array): Field[] {
  const out: Field[] = [];
  let p = 0;
  const varint = () => {
    let result = 0n;
    for (let shift = 0n;; shift += 7n) {
      const b = buf[p++];
      if (b === undefined) throw new Error("onnx: truncated varint");
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) return result;
    }
  };
  const bytes = (n: number) => {
    if (p + n > buf.length) throw new Error("onnx: truncated field");
    const v = buf.subarray(p, p + n);
    p += n;
    return v;
  };
  while (p < buf.length) {
    const key = Number(varint());
    const no = key >>> 3, wire = key & 7;
    if (wire === 0) out.push({ no, wire, value: varint() });
    else if (wire === 2) out.push({ no, wire, value: bytes(Number(varint())) });
    else if (wire === 5) out.push({ no, wire, value: bytes(4) });
    else if (wire === 1) out.push({ no, wire, value: bytes(8) });
    else throw new Error(`onnx: unsupported wire type ${wire}`);
  }
  return out;
}

function varintBytes(v: bigint): number[] {
  const out: number[] = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return out;
}

function encode(fields: Field[]): Uint8Array {
  const parts: Uint8Array[] = [];
  let size = 0;
  const push = (a: Uint8Array) => {
    parts.push(a);
    size += a.length;
  };
  for (const f of fields) {
    push(Uint8Array.from(varintBytes(BigInt((f.no << 3) | f.wire))));
    if (typeof f.value === "bigint") push(Uint8Array.from(varintBytes(f.value)));
    else {
      if (f.wire === 2) push(Uint8Array.from(varintBytes(BigInt(f.value.length))));
      push(f.value);
    }
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const a of parts) {
    out.set(a, at);
    at += a.length;
  }
  return out;
}

const utf8 = new TextEncoder();
const text = new TextDecoder();
const str = (f: Field) => text.decode(f.value as Uint8Array);
const bytesField = (no: number, s: string): Field => ({ no, wire: 2, value: utf8.encode(s) });

// onnx.proto field numbers.
const MODEL_GRAPH = 7;
const GRAPH_NODE = 1, GRAPH_INITIALIZER = 5;
const NODE_INPUT = 1, NODE_OUTPUT = 2, NODE_NAME = 3, NODE_OP = 4, NODE_ATTRIBUTE = 5;
const TENSOR_NAME = 8;
const ATTR_NAME = 1, ATTR_I = 3, ATTR_TYPE = 20, ATTR_TYPE_INT = 2;
const FLOAT = 1;

interface Node {
  op: string;
  inputs: string[];
  outputs: string[];
  /** The encoded NodeProto, kept as read for nodes the rewrite leaves alone. */
  raw?: Uint8Array;
  /** A new Cast's `to`. */
  castTo?: number;
}

function readNode(raw: Uint8Array): Node {
  const f = decode(raw);
  return {
    op: str(f.find((x) => x.no === NODE_OP)!),
    inputs: f.filter((x) => x.no === NODE_INPUT).map(str),
    outputs: f.filter((x) => x.no === NODE_OUTPUT).map(str),
    raw,
  };
}

function node(op: string, inputs: string[], outputs: string[], castTo?: number): Node {
  return { op, inputs, outputs, castTo };
}

function writeNode(n: Node): Uint8Array {
  if (n.raw) return n.raw;
  const fields: Field[] = [
    ...n.inputs.map((i) => bytesField(NODE_INPUT, i)),
    ...n.outputs.map((o) => bytesField(NODE_OUTPUT, o)),
    bytesField(NODE_NAME, `int8_${n.outputs[0]}`),
    bytesField(NODE_OP, n.op),
  ];
  if (n.castTo !== undefined) {
    fields.push({
      no: NODE_ATTRIBUTE,
      wire: 2,
      value: encode([
        bytesField(ATTR_NAME, "to"),
        { no: ATTR_I, wire: 0, value: BigInt(n.castTo) },
        { no: ATTR_TYPE, wire: 0, value: BigInt(ATTR_TYPE_INT) },
      ]),
    });
  }
  return encode(fields);
}

/** A weight the graph dequantises: `name = Cast(quantised) * scale`. */
interface Dequantised {
  quantised: string;
  scale: string;
  nodes: Node[];
}

/**
 * The model with every Gather of a dequantised table done on its int8 rows; other nodes, initializers
 * and model fields are copied as they are. `gathers` counts the Gathers rewritten.
 */
export function int8Gathers(model: Uint8Array): { model: Uint8Array; gathers: number } {
  const modelFields = decode(model);
  const graphField = modelFields.find((f) => f.no === MODEL_GRAPH);
  if (!graphField) throw new Error("onnx: no graph");
  const graph = decode(graphField.value as Uint8Array);
  const initializers = new Set(
    graph.filter((f) => f.no === GRAPH_INITIALIZER).map((f) =>
      str(decode(f.value as Uint8Array).find((x) => x.no === TENSOR_NAME)!)
    ),
  );
  const nodes = graph.filter((f) => f.no === GRAPH_NODE).map((f) => readNode(f.value as Uint8Array));
  const producer = new Map(nodes.flatMap((n) => n.outputs.map((o) => [o, n] as const)));

  const dequantised = new Map<string, Dequantised>();
  for (const mul of nodes) {
    if (mul.op !== "Mul" || mul.inputs.length !== 2) continue;
    const cast = producer.get(mul.inputs[0]!);
    const scale = mul.inputs[1]!;
    if (cast?.op !== "Cast" || !initializers.has(cast.inputs[0]!) || !initializers.has(scale)) continue;
    dequantised.set(mul.outputs[0]!, { quantised: cast.inputs[0]!, scale, nodes: [cast, mul] });
  }

  let gathers = 0;
  const out: Node[] = [];
  for (const n of nodes) {
    const table = n.op === "Gather" ? dequantised.get(n.inputs[0]!) : undefined;
    if (!table) {
      out.push(n);
      continue;
    }
    const ids = n.inputs[1]!, y = n.outputs[0]!;
    out.push(
      node("Gather", [table.quantised, ids], [`${y}_q`]),
      node("Cast", [`${y}_q`], [`${y}_f32`], FLOAT),
      node("Gather", [table.scale, ids], [`${y}_scale`]),
      node("Mul", [`${y}_f32`, `${y}_scale`], [y]),
    );
    gathers++;
  }
  // The float dequantisations nothing reads any more go (else onnxruntime would still fold them).
  const read = new Set(out.flatMap((n) => n.inputs));
  const dropped = new Set(
    [...dequantised].filter(([name]) => !read.has(name)).flatMap(([, d]) => d.nodes),
  );
  const kept = out.filter((n) => !dropped.has(n));

  const newGraph: Field[] = [];
  let nodesWritten = false;
  for (const f of graph) {
    if (f.no !== GRAPH_NODE) newGraph.push(f);
    else if (!nodesWritten) {
      nodesWritten = true;
      for (const n of kept) newGraph.push({ no: GRAPH_NODE, wire: 2, value: writeNode(n) });
    }
  }
  const newModel = modelFields.map((f) => f === graphField ? { ...f, value: encode(newGraph) } : f);
  return { model: encode(newModel), gathers };
}
