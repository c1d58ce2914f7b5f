/**
 * What every gitsync command shares: the global flags (--kubeconfig, --context, -n, also from
 * GITSYNC_CONTEXT / GITSYNC_NAMESPACE) and the session. Reads of gitsync's objects with errors a user
 * can act on are controller/gitsync/client's.
 */
import type { Command, CommandUnknownOpts } from "@commander-js/extra-typings";
import {
  type Cell,
  type Io,
  outputOption,
  printResult,
  type TablePrinter,
  wideOutputOption,
} from "../../internal/cli/mod.ts";
import type { KubeObject } from "../../internal/k8s/mod.ts";
import { formatAge, listDocument } from "../../internal/k8s/table.ts";
import { listAll, type Plural } from "../../controller/gitsync/client/mod.ts";
import { condition } from "../../controller/gitsync/views/text.ts";
import type { Condition } from "../../controller/gitsync/api/mod.ts";
import { addKubeOptions, type KubeSession, withKubeSession } from "../../internal/k8s/cli_session.ts";
import { VERSION as TOOL_VERSION } from "../../internal/version/version.ts";

export const OUTPUT_ENV = "GITSYNC_OUTPUT";

export function addGlobalOptions(program: Command) {
  return addKubeOptions(program, "GITSYNC");
}

export function withSession<T>(command: CommandUnknownOpts, fn: (s: KubeSession) => Promise<T>): Promise<T> {
  return withKubeSession(command, `gitsync/${TOOL_VERSION}`, fn);
}

/** The argument of the commands about one Application. */
export const APPLICATION_ARG: [string, string] = ["<application>", "Application name"];

/** What a read prints: the document -o json|yaml shows, and how it looks as text or a table. */
export interface Shown<T> {
  document: T;
  text: TablePrinter<T>;
}

/**
 * The rest of a command that reads about one object named by its argument (`get`, `revision`,
 * `history`, `logs`): the argument, -o, and the session the read runs in; then prints what it returns.
 */
export function readsOne<T>(
  command: Command,
  io: Io,
  argument: readonly [name: string, description: string],
  read: (session: KubeSession, name: string) => Promise<Shown<T>>,
) {
  return command
    .argument(...argument)
    .addOption(outputOption({ env: OUTPUT_ENV }))
    .action(async (name, flags, cmd) => {
      const { document, text } = await withSession(cmd, (session) => read(session, name));
      printResult(io, document, flags.output, text);
    });
}

/** The kinds `listsAll` lists: their kind, and their plural in sentences. */
const LISTED = {
  applications: { kind: "Application", title: "Applications" },
  repositories: { kind: "Repository", title: "Repositories" },
} as const satisfies Partial<Record<Plural, { kind: string; title: string }>>;

/** An object `listsAll` lists: one with a Ready condition. */
type Listed = KubeObject & { status?: { conditions?: Condition[] } };

/**
 * The rest of a command that lists one kind (`apps`, `repos`): -A, -o wide, the session; the table has
 * the namespace (with -A) and name, the kind's `columns`, then Ready, its reason and the age, and -o wide
 * adds the kind's `wide` columns and the Ready message.
 */
export function listsAll<T extends Listed>(
  command: Command,
  io: Io,
  plural: keyof typeof LISTED,
  table: {
    columns: { headers: string[]; cells: (o: T, now: Date) => Cell[] };
    wide: { headers: string[]; cells: (o: T) => Cell[] };
  },
) {
  const { columns, wide } = table;
  const kind = LISTED[plural];
  return command
    .option("-A, --all-namespaces", `List the ${kind.title} of every namespace`, false)
    .addOption(wideOutputOption({ env: OUTPUT_ENV }))
    .action(async (flags, cmd) => {
      await withSession(cmd, async ({ client, namespace }) => {
        const all = flags.allNamespaces;
        const items = await listAll<T>(client, plural, kind.kind, all ? undefined : namespace);
        const now = new Date();
        printResult(io, listDocument(items), flags.output, {
          headers: [...(all ? ["namespace"] : []), "name", ...columns.headers, "ready", "reason", "age"],
          rows: () =>
            items.map((o) => {
              const ready = condition(o, "Ready");
              return [
                ...(all ? [o.metadata!.namespace] : []),
                o.metadata!.name,
                ...columns.cells(o, now),
                ready?.status ?? "Unknown",
                ready?.reason,
                formatAge(o.metadata?.creationTimestamp, now),
              ];
            }),
          wide: {
            headers: [...wide.headers, "message"],
            rows: () => items.map((o) => [...wide.cells(o), condition(o, "Ready")?.message]),
          },
          empty: all ? `No ${kind.title} found` : `No ${kind.title} found in ${namespace} namespace.`,
        });
      });
    });
}
