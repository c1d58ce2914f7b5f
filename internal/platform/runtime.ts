/** Minimal views of the runtime globals we use; neither runtime's full typings are loaded everywhere. */
export interface BunGlobal {
  /** The entry point's path; in a compiled binary it is in the embedded file system, /$bunfs/. */
  main?: string;
  embeddedFiles?: ReadonlyArray<Blob & { name?: string }>;
  mmap?(path: string, options?: { shared?: boolean }): Uint8Array;
  serve(options: {
    hostname: string;
    port: number;
    idleTimeout?: number;
    maxRequestBodySize?: number;
    tls?: { cert: string; key: string };
    websocket?: object;
    fetch(
      req: Request,
      server: {
        requestIP(req: Request): { address: string } | null;
        upgrade(req: Request, options: { data: unknown }): boolean;
      },
    ): Response | Promise<Response>;
  }): { port: number; hostname: string; stop(closeActive?: boolean): Promise<void> };
}

const g = globalThis as { Bun?: BunGlobal; Deno?: unknown };

/** The runtime this process runs on. Compiled binaries are "bun"; development and tests are "deno". */
export const runtime: "bun" | "deno" | "node" = g.Bun ? "bun" : g.Deno ? "deno" : "node";

export function bunGlobal(): BunGlobal | undefined {
  return g.Bun;
}
