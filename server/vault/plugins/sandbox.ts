/**
 * The plugin side of a sandbox process (`vault __plugin-sandbox`): imports the plugin's server entry
 * and gives its `activate(api)` the host API, every call of which is a message to the vault
 * (protocol.ts). The process has no database, no credentials and an empty environment; the vault
 * kills it when a call overruns its time or the process its memory.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { type FromSandbox, LINE_MARK, PLUGIN_EVENTS, type RouteRequest, type ToSandbox } from "./protocol.ts";

type Handler = (arg: unknown) => unknown;

export async function runPluginSandbox(): Promise<void> {
  const write = process.stdout.write.bind(process.stdout);
  const send = (m: FromSandbox) => write(LINE_MARK + JSON.stringify(m) + "\n");
  const fail = (err: unknown) => (err instanceof Error ? err.message : String(err));
  // The vault's call a piece of plugin code runs under, so api.notes acts as that call's user.
  const current = new AsyncLocalStorage<number>();
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let nextId = 1;
  const request = (method: string, ...args: unknown[]) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      waiting.set(id, { resolve, reject });
      send({ t: "api", id, method, args, call: current.getStore() });
    });
  const routes = new Map<string, Handler>();
  const handlers = new Map<string, Handler[]>();
  let deactivate: (() => unknown) | undefined;

  const log =
    (level: "debug" | "info" | "warn" | "error") => (msg: unknown, fields?: Record<string, unknown>) =>
      send({ t: "log", level, msg: String(msg), fields });
  const api = Object.freeze({
    plugin: {} as { id: string; version: string },
    notes: Object.freeze({
      get: (path: string, owner?: string) => request("notes.get", path, owner),
      list: (folder?: string) => request("notes.list", folder),
      create: (path: string, content: string) => request("notes.create", path, content),
      update: (path: string, content: string, version?: string) =>
        request("notes.update", path, content, version),
      delete: (path: string) => request("notes.delete", path),
    }),
    storage: Object.freeze({
      get: (key: string, userId?: string) => request("storage.get", key, userId),
      set: (key: string, value: unknown, userId?: string) => request("storage.set", key, value, userId),
      delete: (key: string, userId?: string) => request("storage.delete", key, userId),
      list: (prefix?: string, userId?: string) => request("storage.list", prefix, userId),
    }),
    events: Object.freeze({
      on(event: string, handler: Handler) {
        if (!(PLUGIN_EVENTS as readonly string[]).includes(event)) {
          throw new Error(`unknown event ${event}: one of ${PLUGIN_EVENTS.join(", ")}`);
        }
        if (!handlers.has(event)) send({ t: "subscribe", event });
        handlers.set(event, [...(handlers.get(event) ?? []), handler]);
      },
    }),
    routes: Object.freeze({
      register(
        method: string,
        path: string,
        handler: Handler,
        options: { name?: string; description?: string } = {},
      ) {
        const m = method.toUpperCase();
        if (!["GET", "POST", "PUT", "PATCH", "DELETE"].includes(m)) throw new Error(`method ${method}?`);
        if (!/^\/[A-Za-z0-9._~\/-]*$/.test(path)) throw new Error(`path ${path}: must start with /`);
        routes.set(`${m} ${path}`, handler);
        send({ t: "route", method: m, path, name: options.name, description: options.description });
      },
    }),
    settings: Object.freeze({
      get: (key: string) => request("settings.get", key),
      all: () => request("settings.all"),
    }),
    log: Object.freeze({ debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") }),
  });
  // What the plugin prints goes to the vault's log, not into the protocol.
  console.log = console.info = log("info");
  console.debug = log("debug");
  console.warn = log("warn");
  console.error = log("error");
  // An error nothing caught ends the sandbox; the vault marks the plugin as failed.
  process.on("uncaughtException", (err) => {
    log("error")(`uncaught: ${fail(err)}`);
    process.exit(70);
  });
  process.on("unhandledRejection", (err) => {
    log("error")(`unhandled rejection: ${fail(err)}`);
    process.exit(70);
  });

  const reply = (id: number, run: () => unknown) =>
    current.run(id, async () => {
      try {
        send({ t: "reply", id, ok: true, value: (await run()) ?? null });
      } catch (err) {
        send({ t: "reply", id, ok: false, error: fail(err) });
      }
    });

  const onMessage = (m: ToSandbox) => {
    switch (m.t) {
      case "reply": {
        const w = waiting.get(m.id);
        waiting.delete(m.id);
        if (m.ok) w?.resolve(m.value);
        else w?.reject(new Error(m.error));
        return;
      }
      case "activate":
        return reply(m.id, async () => {
          Object.assign(api.plugin, m.plugin);
          const mod = await import(pathToFileURL(m.entry).href);
          const main = mod.activate ? mod : mod.default;
          if (typeof main?.activate !== "function") {
            throw new Error("the server entry exports no activate(api)");
          }
          deactivate = main.deactivate?.bind(main);
          await main.activate(api);
        });
      case "route":
        return reply(m.id, () => {
          const handler = routes.get(m.route);
          if (!handler) throw new Error(`no route ${m.route}`);
          return handler(m.request satisfies RouteRequest);
        });
      case "event":
        return reply(m.id, async () => {
          for (const h of handlers.get(m.event) ?? []) await h(m.payload);
        });
      case "deactivate":
        return reply(m.id, () => deactivate?.());
    }
  };

  const lines = createInterface({ input: process.stdin });
  lines.on("line", (line) => {
    if (line.trim()) onMessage(JSON.parse(line) as ToSandbox);
  });
  // The vault closed the pipe (it stopped or unloaded the plugin): nothing more will come.
  send({ t: "ready" });
  await new Promise<void>((resolve) => lines.on("close", resolve));
  process.exit(0);
}
