/**
 * api.storage: a plugin's key-value store in the database (table plugin_storage), keyed by the plugin
 * id the vault gave its sandbox, so one plugin never reads another's keys. A key lives in the plugin's
 * global space, or (with a user id, which must be the user the call acts for) in that user's.
 */
import type { Kysely } from "kysely";
import type { VaultDatabase } from "../store/db.ts";

const MAX_KEY = 200;
const MAX_VALUE_BYTES = 64 * 1024;
const MAX_LIST = 1000;

export class PluginStorage {
  constructor(private readonly db: Kysely<VaultDatabase>) {}

  async call(
    pluginId: string,
    method: string,
    args: unknown[],
    userId: string | undefined,
  ): Promise<unknown> {
    const [first, second, third] = args;
    const scopeArg = method === "storage.set" ? third : second;
    const scope = this.#scope(scopeArg, userId);
    const base = this.db.selectFrom("plugin_storage").where("plugin_id", "=", pluginId).where(
      "scope",
      "=",
      scope,
    );
    switch (method) {
      case "storage.get": {
        const row = await base.select("value").where("key", "=", this.#key(first)).executeTakeFirst();
        return row ? row.value : null;
      }
      case "storage.set": {
        const key = this.#key(first);
        const json = JSON.stringify(second ?? null);
        if (new TextEncoder().encode(json).length > MAX_VALUE_BYTES) {
          throw new Error(`a value is at most ${MAX_VALUE_BYTES} bytes of JSON`);
        }
        const value = JSON.parse(json);
        await this.db.insertInto("plugin_storage").values({ plugin_id: pluginId, scope, key, value })
          .onConflict((oc) =>
            oc.columns(["plugin_id", "scope", "key"]).doUpdateSet({ value, updated_at: new Date() })
          )
          .execute();
        return null;
      }
      case "storage.delete":
        await this.db.deleteFrom("plugin_storage").where("plugin_id", "=", pluginId).where(
          "scope",
          "=",
          scope,
        )
          .where("key", "=", this.#key(first)).execute();
        return null;
      case "storage.list": {
        const prefix = typeof first === "string" ? first : "";
        let q = base.select(["key", "value"]).orderBy("key").limit(MAX_LIST);
        if (prefix) q = q.where("key", ">=", prefix).where("key", "<", prefix + "\uffff");
        return await q.execute();
      }
    }
    throw new Error(`no host API ${method}`);
  }

  #key(key: unknown): string {
    if (typeof key !== "string" || !key || key.length > MAX_KEY) {
      throw new Error(`a key is a string of 1 to ${MAX_KEY} characters`);
    }
    return key;
  }

  #scope(userId: unknown, caller: string | undefined): string {
    if (userId === undefined || userId === null) return "";
    if (typeof userId !== "string" || userId !== caller) {
      throw new Error("a user's storage is reachable only in a call acting for that user");
    }
    return userId;
  }
}
