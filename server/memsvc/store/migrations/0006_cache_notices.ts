/**
 * Notices for the in-process caches of the request path (API token → owner, user → active project):
 * a change to a row they copy sends `pg_notify('memsvc_cache', …)` from a trigger, so every server on
 * the database drops its copy, whichever process or library (the identity library changes users)
 * made the change. Payloads: `t:<token hash>` (a token deleted or rotated), `u:<user id>` (a user
 * changed: role, ban, email, removal), `a:<user id>` (a user's active project or memberships changed),
 * `a*` (a project changed or went: every active-project copy). No table or row changes.
 */
import { sql } from "kysely";
import type { Migration } from "../../../../internal/db/mod.ts";

export const cacheNotices: Migration = {
  async up(db) {
    await sql`create function memsvc_cache_notice() returns trigger language plpgsql as $$
      begin
        if tg_table_name = 'user_tokens' then
          perform pg_notify('memsvc_cache', 't:' || old.token_hash);
        elsif tg_table_name = 'user' then
          perform pg_notify('memsvc_cache', 'u:' || old.id);
        elsif tg_table_name = 'projects' then
          perform pg_notify('memsvc_cache', 'a*');
        elsif tg_op = 'DELETE' then
          perform pg_notify('memsvc_cache', 'a:' || old.user_id);
        else
          perform pg_notify('memsvc_cache', 'a:' || new.user_id);
        end if;
        return null;
      end $$`.execute(db);
    // last_used_at updates leave tokens alone: only a change of what a token resolves to counts.
    await sql`create trigger user_tokens_cache_notice after delete or update of token_hash, user_id
      on user_tokens for each row execute function memsvc_cache_notice()`.execute(db);
    await sql`create trigger user_cache_notice after update or delete on "user"
      for each row execute function memsvc_cache_notice()`.execute(db);
    await sql`create trigger projects_cache_notice after update or delete on projects
      for each row execute function memsvc_cache_notice()`.execute(db);
    await sql`create trigger user_active_project_cache_notice after insert or update or delete
      on user_active_project for each row execute function memsvc_cache_notice()`.execute(db);
    await sql`create trigger project_members_cache_notice after insert or update or delete
      on project_members for each row execute function memsvc_cache_notice()`.execute(db);
  },
};
