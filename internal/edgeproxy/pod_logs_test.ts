import assert from "node:assert/strict";
import { test } from "node:test";
import { KubeApiError, type KubeClient, type KubeRequest } from "../k8s/mod.ts";
import {
  followLogs,
  formatLogLine,
  LineSplitter,
  type LogLine,
  type OpenStream,
  readLogs,
  resumePoints,
  splitTimestamp,
  timeKey,
} from "./pod_logs.ts";
import type { LogSource } from "./proxy_pods.ts";

const SOURCE: LogSource = { pod: "agent-x", namespace: "edge-system", container: "agent", node: "n1" };

test("splitTimestamp and timeKey: kubelet timestamps, trimmed fractions compare correctly", () => {
  assert.deepEqual(splitTimestamp("2026-11-25T10:00:00.5Z hello world"), {
    time: "2026-11-25T10:00:00.5Z",
    text: "hello world",
  });
  assert.deepEqual(splitTimestamp("no timestamp here"), { time: "", text: "no timestamp here" });
  assert.ok(timeKey("2026-11-25T10:00:00.5Z") > timeKey("2026-11-25T10:00:00.123456789Z"));
  assert.equal(timeKey("2026-11-25T11:00:00+01:00"), "2026-11-25T10:00:00.000000000Z");
});

test("LineSplitter keeps a partial line until its end arrives", () => {
  const s = new LineSplitter();
  assert.deepEqual(s.push("a\nb"), ["a"]);
  assert.deepEqual(s.push("c\r\n"), ["bc"]);
  assert.deepEqual(s.push("tail"), []);
  assert.deepEqual(s.flush(), ["tail"]);
});

test("followLogs reconnects from the last line's time without repeating or losing lines", async () => {
  // The server's log: three lines share one second; the first stream breaks after two of them.
  const log = [
    "2026-11-25T10:00:00.000000000Z one",
    "2026-11-25T10:00:01.000000000Z two",
    "2026-11-25T10:00:01.000000000Z two-bis",
    "2026-11-25T10:00:02.000000000Z three",
  ];
  const opens: (string | undefined)[] = [];
  const controller = new AbortController();
  const open: OpenStream = (_source, options) => {
    opens.push(options.sinceTime);
    const attempt = opens.length;
    return (async function* () {
      if (attempt === 1) {
        yield `${log[0]}\n${log[1]}\n`;
        throw new Error("connection reset");
      }
      if (attempt === 2) {
        // Resumed at 10:00:01 (second precision): the server sends that second again.
        assert.equal(options.sinceTime, "2026-11-25T10:00:01Z");
        yield `${log[1]}\n${log[2]}\n`;
        return; // the stream ends (API server restart)
      }
      yield `${log[1]}\n${log[2]}\n${log[3]}\n`;
      controller.abort();
    })();
  };
  const seen: string[] = [];
  const notices: string[] = [];
  await followLogs(open, [SOURCE], {
    signal: controller.signal,
    retryMs: 1,
    onLine: (l) => seen.push(l.text),
    onNotice: (m) => notices.push(m),
  });
  assert.deepEqual(seen, ["one", "two", "two-bis", "three"]);
  assert.equal(opens.length, 3);
  assert.match(notices[0]!, /lost the log stream of pod\/agent-x\/agent: connection reset/);
});

test("resumePoints: a follow after a read starts after the lines already printed", async () => {
  const lines: LogLine[] = [
    { source: SOURCE, time: "2026-11-25T10:00:01Z", text: "a" },
    { source: SOURCE, time: "2026-11-25T10:00:01Z", text: "b" },
  ];
  const from = resumePoints(lines);
  assert.deepEqual(from.get(SOURCE), { time: "2026-11-25T10:00:01Z", seen: 2 });
  const controller = new AbortController();
  const seen: string[] = [];
  await followLogs(
    (_s, options) => {
      assert.equal(options.sinceTime, "2026-11-25T10:00:01Z");
      return (async function* () {
        yield "2026-11-25T10:00:01Z a\n2026-11-25T10:00:01Z b\n2026-11-25T10:00:01Z c\n";
        controller.abort();
      })();
    },
    [SOURCE],
    { signal: controller.signal, from, onLine: (l) => seen.push(l.text) },
  );
  assert.deepEqual(seen, ["c"]);
});

test("formatLogLine: kubectl's prefix for several containers, timestamps on request", () => {
  const line = { source: SOURCE, time: "2026-11-25T10:00:00Z", text: "ready" };
  assert.equal(formatLogLine(line, { prefix: false, timestamps: false }), "ready\n");
  assert.equal(
    formatLogLine(line, { prefix: true, timestamps: true }),
    "[pod/agent-x/agent] 2026-11-25T10:00:00Z ready\n",
  );
});

test("readLogs merges containers in time order and skips one that has not started", async () => {
  const other: LogSource = { ...SOURCE, container: "sidecar" };
  const waiting: LogSource = { ...SOURCE, container: "init-later" };
  const bodies: Record<string, string> = {
    agent: "2026-11-25T10:00:00.5Z a1\n2026-11-25T10:00:02Z a2\n",
    sidecar: "2026-11-25T10:00:01.25Z s1\n",
  };
  const silent: LogSource = { ...SOURCE, container: "silent" }; // an empty log: the client returns no body
  const client = {
    request: (req: KubeRequest) => {
      const c = String(req.query?.container);
      if (c === "init-later") {
        return Promise.reject(
          new KubeApiError(400, {
            kind: "Status",
            reason: "BadRequest",
            message: "container is waiting to start",
          }),
        );
      }
      return Promise.resolve(c === "silent" ? undefined : bodies[c]!);
    },
  } as unknown as KubeClient;
  const skipped: string[] = [];
  const lines = await readLogs(client, [SOURCE, other, waiting, silent], {
    onSkip: (s, m) => skipped.push(`${s.container}: ${m}`),
  });
  assert.deepEqual(lines.map((l) => l.text), ["a1", "s1", "a2"]);
  assert.equal(skipped.length, 1);
  assert.match(skipped[0]!, /^init-later: .*container is waiting to start/);
  await assert.rejects(readLogs(client, [waiting]), /container is waiting to start/);
});

test("followLogs: a stream lost before any line starts over with the same --tail", async () => {
  const controller = new AbortController();
  const asked: { tail?: number; sinceTime?: string }[] = [];
  const seen: string[] = [];
  await followLogs(
    (_s, options) => {
      asked.push({
        ...(options.tail !== undefined ? { tail: options.tail } : {}),
        ...(options.sinceTime ? { sinceTime: options.sinceTime } : {}),
      });
      const attempt = asked.length;
      return (async function* () {
        if (attempt === 1) throw new Error("connection refused");
        yield "2026-11-25T10:00:00Z last\n";
        controller.abort();
      })();
    },
    [SOURCE],
    { signal: controller.signal, tail: 1, retryMs: 1, onLine: (l) => seen.push(l.text) },
  );
  assert.deepEqual(asked, [{ tail: 1 }, { tail: 1 }]);
  assert.deepEqual(seen, ["last"]);
});

test("followLogs with discover: a Pod created later is followed from its first line, once", async () => {
  const controller = new AbortController();
  const NEW: LogSource = { ...SOURCE, pod: "agent-new" };
  const opened: { pod: string; tail?: number }[] = [];
  const seen: string[] = [];
  const added: string[] = [];
  let lists = 0;
  await followLogs(
    (source, options, signal) => {
      opened.push({ pod: source.pod, ...(options.tail !== undefined ? { tail: options.tail } : {}) });
      return (async function* () {
        if (source.pod === "agent-new") {
          yield "2026-11-25T10:00:05Z hello from the new pod\n";
          controller.abort();
          return;
        }
        yield "2026-11-25T10:00:00Z old\n";
        // Stays open like a follow, until aborted.
        await new Promise((r) => signal.addEventListener("abort", r, { once: true }));
      })();
    },
    [SOURCE],
    {
      signal: controller.signal,
      tail: 1,
      discoverEveryMs: 5,
      discover: () => Promise.resolve(++lists === 1 ? [SOURCE] : [SOURCE, NEW]),
      onNewSource: (s) => added.push(s.pod),
      onLine: (l) => seen.push(`${l.source.pod}: ${l.text}`),
    },
  );
  assert.deepEqual(added, ["agent-new"]);
  assert.deepEqual(opened, [{ pod: "agent-x", tail: 1 }, { pod: "agent-new" }]);
  assert.deepEqual(seen, ["agent-x: old", "agent-new: hello from the new pod"]);
});
