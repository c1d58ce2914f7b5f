/**
 * The behaviour rules sent in the MCP `instructions` field on initialize. Hosts put them in the
 * model's context, so they are written as direct rules. memory_adoption reports their SHA-256 so a
 * client can tell that its cached copy is stale.
 */
import { createHash } from "node:crypto";

export const INSTRUCTIONS = `You have a long-term memory service (memsvc). Follow these rules:

1. At the start of every session and before answering any substantive request, CALL memory_context with the task at hand. It returns what you already know: relevant memories, recent entries and the active project.
2. When you learn a durable fact, CALL memory_capture with one self-contained fact per call: user preferences, decisions and their reasons, project conventions, setup and deployment facts, root causes of bugs, people and schedules. Do not capture small talk, acknowledgements or facts that only matter for the next minute.
3. NEVER store secrets: no passwords, API keys, tokens, private keys, connection strings with credentials or personal identifiers the user did not ask you to keep. Store where a secret lives, never the secret.
4. Use memory_search to look something up mid-task, and memory_update to correct an entry instead of capturing a contradicting one.
5. Projects: memory is either user-global or belongs to a project (a shared sub-brain whose members see its entries). When the user has an active project, reads combine user-global memory with it and writes go into it. Use project_activate when the user switches to work on a project and project_deactivate when they leave it; project_list shows what exists. Every memory tool accepts an optional "project" (id or name) that overrides the active project for that call.
6. If tools look stale or missing, CALL memory_adoption and follow its refresh guidance.`;

export const INSTRUCTIONS_SHA256 = createHash("sha256").update(INSTRUCTIONS).digest("hex");
