/**
 * Runs under node (bundled by esbuild; see mem0.ts): mem0ai's open-source library in local mode
 * needs better-sqlite3, a native addon built for node. One JSON request per stdin line, one JSON
 * answer per stdout line. Latencies are of the library calls themselves, timed in this process.
 *
 * Configuration: LLM inference off (`infer: false` on every add; the LLM is configured with a dummy
 * key and never called), history disabled, the "memory" vector store (SQLite in memory), and
 * memsvc's built-in embedder injected through mem0's LangChain embedder slot, so both systems
 * compare the very same vectors.
 */
import { createInterface } from "node:readline";
import { Memory } from "mem0ai/oss";
import { embedText } from "../../../server/memsvc/embeddings/builtin.ts";
import { BUILTIN_DIMENSIONS } from "../../../server/memsvc/embeddings/builtin.ts";
import { runLoad, summarize } from "../stats.ts";

const embedder = {
  embedQuery: (text: string) => Promise.resolve(Array.from(embedText(text))),
  embedDocuments: (texts: string[]) => Promise.resolve(texts.map((t) => Array.from(embedText(t)))),
};

const stores = new Map<string, Memory>();

function store(name: string): Memory {
  let memory = stores.get(name);
  if (!memory) {
    memory = new Memory({
      disableHistory: true,
      embedder: { provider: "langchain", config: { model: embedder, embeddingDims: BUILTIN_DIMENSIONS } },
      vectorStore: {
        provider: "memory",
        config: { collectionName: name, dimension: BUILTIN_DIMENSIONS, dbPath: ":memory:" },
      },
      llm: { provider: "openai", config: { apiKey: "unused-inference-is-off", model: "unused" } },
    });
    stores.set(name, memory);
  }
  return memory;
}

type Request =
  | { op: "add"; store: string; texts: string[]; concurrency: number }
  | { op: "search"; store: string; queries: string[]; limit: number };

async function handle(req: Request): Promise<unknown> {
  const memory = store(req.store);
  if (req.op === "add") {
    return await runLoad(req.texts.length, req.concurrency, async (i) => {
      await memory.add(req.texts[i]!, { userId: "bench", infer: false });
    });
  }
  const samples: number[] = [];
  const results: string[][] = [];
  for (const query of req.queries) {
    const t = performance.now();
    const found = await memory.search(query, { filters: { user_id: "bench" }, topK: req.limit });
    samples.push(performance.now() - t);
    results.push(found.results.map((r) => r.memory ?? ""));
  }
  return { latency: summarize(samples), results };
}

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  try {
    process.stdout.write(JSON.stringify({ ok: true, value: await handle(JSON.parse(line)) }) + "\n");
  } catch (err) {
    process.stdout.write(JSON.stringify({ ok: false, error: String((err as Error)?.stack ?? err) }) + "\n");
  }
}
