/**
 * A stand-in for a third-party embeddings API that speaks the OpenAI `/v1/embeddings` protocol,
 * for black-box tests of memsvc's remote embedder. Vectors come from memsvc's built-in embedder,
 * so search quality matches; the server counts requests and can be told to fail.
 */
import { createServer, type Server } from "node:http";
import { BuiltinEmbedder } from "../../server/memsvc/embeddings/builtin.ts";

export interface FakeEmbeddings {
  /** The API base to put in MEMSVC_EMBEDDINGS_URL. */
  url: string;
  /** Inputs received so far, in order. */
  inputs: string[];
  /** When true every request answers 500. */
  failing: boolean;
  stop(): Promise<void>;
}

export async function startFakeEmbeddings(apiKey: string): Promise<FakeEmbeddings> {
  const embedder = new BuiltinEmbedder();
  const state = { inputs: [] as string[], failing: false };
  const answer = async (
    url?: string,
    method?: string,
    auth?: string,
    body = "",
  ): Promise<[number, string]> => {
    if (url !== "/v1/embeddings" || method !== "POST") return [404, "{}"];
    if (auth !== `Bearer ${apiKey}`) return [401, '{"error":"bad key"}'];
    if (state.failing) return [500, '{"error":"upstream down"}'];
    const { input } = JSON.parse(body) as { input: string[] };
    state.inputs.push(...input);
    const vectors = await embedder.embed(input);
    return [
      200,
      JSON.stringify({
        object: "list",
        data: vectors.map((v, index) => ({ object: "embedding", index, embedding: Array.from(v) })),
        model: "fake",
      }),
    ];
  };
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", async () => {
      const [status, reply] = await answer(req.url, req.method, req.headers.authorization, body);
      res.writeHead(status, { "content-type": "application/json" }).end(reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get inputs() {
      return state.inputs;
    },
    get failing() {
      return state.failing;
    },
    set failing(v: boolean) {
      state.failing = v;
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
