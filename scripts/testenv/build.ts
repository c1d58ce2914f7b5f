/**
 * Builds the test servers and tools of servers.ts from their pinned Go module recipes into the cache
 * outside the repo (go_build.ts), or reports them as cached.
 *
 *   deno task testenv:build              # every component in TEST_SERVERS
 *   deno task testenv:build sops helm    # the named ones
 *
 * Environment: K8S_TEST_CACHE (cache root), XDG_CACHE_HOME. Needs `go` (>= 1.24) and the module proxy.
 */
import { ensureBinary } from "./go_build.ts";
import { TEST_SERVERS } from "./servers.ts";

const names = process.argv.slice(2);
const known = new Set(TEST_SERVERS.map((c) => c.name));
for (const n of names) {
  if (!known.has(n)) {
    console.error(
      `error: unknown component ${n}\nusage: deno task testenv:build [${[...known].join("|")} ...]`,
    );
    process.exit(2);
  }
}
const components = names.length ? TEST_SERVERS.filter((c) => names.includes(c.name)) : TEST_SERVERS;
try {
  for (const c of components) {
    const r = await ensureBinary(c);
    console.log(
      r.cached
        ? `${c.name} ${c.version}: cached ${r.path}`
        : `${c.name} ${c.version}: built ${r.path} in ${r.seconds.toFixed(0)} s`,
    );
  }
} catch (err) {
  console.error(`error: ${(err as Error).message}`);
  process.exit(1);
}
