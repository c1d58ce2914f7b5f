/**
 * Session tokens stored as their SHA-256: a Kysely plugin on the identity library's connection that
 * hashes the `token` column wherever the library writes or looks it up, and gives the library back
 * the token it asked with. The cookie carries the token (signed, HttpOnly); the database holds only
 * its hash, so a leaked backup or replica cannot be replayed as a session.
 *
 * Rows the library lists without having named their token (list-sessions) come back as
 * `sha256:<hash>`. That value opens nothing: a lookup with it is hashed again and finds no row; a
 * tool that lets users revoke listed sessions deletes by the hash itself (see the vault's
 * routes/sessions.ts).
 *
 * Only tables whose column is literally `token` are affected: among the identity tables that is
 * `session` alone (accounts keep accessToken/refreshToken, verification keeps value).
 *
 * @example
 * createAuth({ ..., db: db.withPlugin(new HashedSessionTokens()) });
 */
import { createHash } from "node:crypto";
import {
  type BinaryOperationNode,
  ColumnNode,
  type InsertQueryNode,
  type KyselyPlugin,
  type OperationNode,
  OperationNodeTransformer,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PrimitiveValueListNode,
  type QueryId,
  type QueryResult,
  ReferenceNode,
  type RootOperationNode,
  type UnknownRow,
  ValueListNode,
  ValueNode,
  ValuesNode,
} from "kysely";

/** The prefix of a listed session's stored hash. */
export const HASHED_TOKEN_PREFIX = "sha256:";
const HASHED = HASHED_TOKEN_PREFIX;
const TOKEN = "token";

export const sha256Hex = (value: string) => createHash("sha256").update(value).digest("hex");

export class HashedSessionTokens implements KyselyPlugin {
  /** Per query: hash -> the token the library used, to hand back in its result rows. */
  readonly #known = new WeakMap<QueryId, Map<string, string>>();

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    const known = new Map<string, string>();
    this.#known.set(queryId, known);
    return new TokenHasher(known).transformNode(node);
  }

  transformResult({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const known = this.#known.get(queryId);
    if (!result.rows.some((row) => typeof row[TOKEN] === "string")) return Promise.resolve(result);
    const rows = result.rows.map((row) => {
      const stored = row[TOKEN];
      if (typeof stored !== "string") return row;
      return { ...row, [TOKEN]: known?.get(stored) ?? HASHED + stored };
    });
    return Promise.resolve({ ...result, rows });
  }
}

class TokenHasher extends OperationNodeTransformer {
  constructor(readonly known: Map<string, string>) {
    super();
  }

  hash(value: unknown): unknown {
    if (typeof value !== "string") return value;
    const hashed = sha256Hex(value);
    this.known.set(hashed, value);
    return hashed;
  }

  hashNode(node: OperationNode): OperationNode {
    if (ValueNode.is(node)) return { ...node, value: this.hash(node.value) } as ValueNode;
    if (PrimitiveValueListNode.is(node)) {
      return { ...node, values: node.values.map((v) => this.hash(v)) } as PrimitiveValueListNode;
    }
    if (ValueListNode.is(node)) {
      return { ...node, values: node.values.map((v) => this.hashNode(v)) } as ValueListNode;
    }
    return node;
  }

  protected override transformBinaryOperation(
    node: BinaryOperationNode,
    queryId?: QueryId,
  ): BinaryOperationNode {
    const out = super.transformBinaryOperation(node, queryId);
    return isTokenColumn(out.leftOperand) ? { ...out, rightOperand: this.hashNode(out.rightOperand) } : out;
  }

  protected override transformInsertQuery(node: InsertQueryNode, queryId?: QueryId): InsertQueryNode {
    const out = super.transformInsertQuery(node, queryId);
    const at = out.columns?.findIndex((c) => c.column.name === TOKEN) ?? -1;
    if (at < 0 || !out.values || !ValuesNode.is(out.values)) return out;
    const values = out.values.values.map((row) => {
      if (PrimitiveValueListNode.is(row)) {
        return { ...row, values: row.values.map((v, i) => (i === at ? this.hash(v) : v)) };
      }
      return { ...row, values: row.values.map((v, i) => (i === at ? this.hashNode(v) : v)) };
    });
    return { ...out, values: { ...out.values, values } as ValuesNode };
  }
}

function isTokenColumn(node: OperationNode): boolean {
  if (ColumnNode.is(node)) return node.column.name === TOKEN;
  return ReferenceNode.is(node) && ColumnNode.is(node.column) && node.column.column.name === TOKEN;
}
