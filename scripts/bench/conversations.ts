/**
 * A seeded, labelled conversational recall set: long multi-session chats between a user and an
 * assistant, each turn stored as one memory, with questions whose answering turns are known.
 *
 * Each chat is one person's history (own namespace, so each question is asked of its own haystack):
 * sessions on everyday themes (travel, cooking, work, fitness, money, code, books, home), filled
 * with chit-chat that shares the facts' vocabulary, and personal facts dropped into them. Every fact
 * also leaves near-miss turns (same words, other details) elsewhere in the chat. Question kinds:
 *
 * - direct: asks with the words the answer used;
 * - paraphrase: asks with other words for the same thing (dog / pet, start / first day);
 * - time: asks when something happened; the answer carries the date;
 * - multi: the answer is spread over several turns (any of them counts);
 * - context: the answer turn lacks the question's topic words, which only its neighbours carry
 *   ("I settled on a name for the sailboat." … "Wandering Heron, after my grandmother's village.").
 *
 * Scoring (scripts/bench/recall.ts) is recall_any@k: a question counts when any labelled turn is in
 * the top k. The generator was fixed before any measurement against it; the seed makes it repeatable.
 */
import { rng } from "./data.ts";
import { CITIES, type Fact, FACTS, type FactTurn, MONTHS, pick, shuffle } from "./conversation_facts.ts";
import { ASSISTANT_TAILS, FOLLOW_UPS, OPENERS, THEMES, USER_TAILS } from "./conversation_themes.ts";

export type QuestionKind = "direct" | "paraphrase" | "time" | "multi" | "context";

export interface Turn {
  /** Stable within the set: `c03-s07-t12`. */
  key: string;
  /** The generated set's turns are a user's or the assistant's. */
  role?: "user" | "assistant";
  /** The public sets' turns (public_sets.ts) name who wrote them. */
  speaker?: string;
  text: string;
}

export interface Session {
  id: string;
  /** Day the session took place (ISO date); sessions are in order. */
  date: string;
  turns: Turn[];
}

export interface Question {
  chat: string;
  /** QuestionKind for the generated set; the public sets' own categories (public_sets.ts). */
  kind: string;
  question: string;
  /** Keys of the turns that answer it. */
  answers: string[];
}

export interface Chat {
  id: string;
  sessions: Session[];
}

export interface ConversationSet {
  chats: Chat[];
  questions: Question[];
}

export interface SetOptions {
  chats: number;
  sessionsPerChat: number;
  turnsPerSession: number;
  factsPerChat: number;
  seed: number;
}

export const DEFAULT_SET: SetOptions = {
  chats: 20,
  sessionsPerChat: 12,
  turnsPerSession: 36,
  factsPerChat: 14,
  seed: 25,
};

export function conversationSet(options: SetOptions = DEFAULT_SET): ConversationSet {
  const r = rng(options.seed);
  const chats: Chat[] = [];
  const questions: Question[] = [];
  for (let c = 0; c < options.chats; c++) {
    const chatId = `c${String(c).padStart(2, "0")}`;
    const fill = (s: string) =>
      s.replaceAll("{city}", pick(r, CITIES)).replaceAll("{month}", pick(r, MONTHS));
    // Slots: each session is a list of blocks (fact blocks and single chit-chat turns).
    const facts = shuffle(r, FACTS.map((_, i) => i)).slice(0, options.factsPerChat).map((i) => FACTS[i]!(r));
    const sessionsBlocks: FactTurn[][][] = [];
    for (let s = 0; s < options.sessionsPerChat; s++) {
      const theme = pick(r, Object.keys(THEMES));
      const blocks: FactTurn[][] = [];
      const { user, assistant } = THEMES[theme]!;
      for (let t = 0; t < options.turnsPerSession; t += 2) {
        const i = Math.floor(r() * user.length);
        const extra = r() < 0.4 ? ` ${pick(r, assistant)}` : "";
        const ask = `${pick(r, OPENERS)}${fill(user[i]!)}${pick(r, USER_TAILS)}`;
        const reply = `${fill(assistant[i]!)}${fill(extra)}${pick(r, ASSISTANT_TAILS)}`;
        blocks.push([{ role: "user", text: ask }, { role: "assistant", text: reply }]);
        if (r() < 0.25) blocks.push([{ role: "user", text: pick(r, FOLLOW_UPS) }]);
      }
      sessionsBlocks.push(blocks);
    }
    const placed: { fact: Fact; session: number; block: FactTurn[] }[] = [];
    for (const fact of facts) {
      const s = Math.floor(r() * options.sessionsPerChat);
      const block = fact.turns.map((t) => ({ ...t }));
      const blocks = sessionsBlocks[s]!;
      blocks.splice(Math.floor(r() * (blocks.length + 1)), 0, block);
      placed.push({ fact, session: s, block });
      for (const d of fact.distractors) {
        const ds = sessionsBlocks[Math.floor(r() * options.sessionsPerChat)]!;
        ds.splice(Math.floor(r() * (ds.length + 1)), 0, [{ role: "user", text: d }]);
      }
    }
    // Number the turns; identical texts within a chat get a varied tail (a memory store dedupes them).
    const seen = new Set<string>();
    const keyOf = new Map<FactTurn, string>();
    const sessions: Session[] = sessionsBlocks.map((blocks, s) => {
      const turns: Turn[] = [];
      for (const block of blocks) {
        for (const t of block) {
          let text = t.text;
          for (let n = 2; seen.has(text); n++) {
            text = `${t.text} (${pick(r, ["again", "still", "really"])} ${n})`;
          }
          seen.add(text);
          const key = `${chatId}-s${String(s).padStart(2, "0")}-t${String(turns.length).padStart(3, "0")}`;
          keyOf.set(t, key);
          turns.push({ key, role: t.role, text });
        }
      }
      const date = new Date(Date.UTC(2025, 0, 6 + s * 9)).toISOString().slice(0, 10);
      return { id: `${chatId}-s${String(s).padStart(2, "0")}`, date, turns };
    });
    for (const { fact, block } of placed) {
      for (const q of fact.questions) {
        const idx = q.answers ?? block.flatMap((t, i) => (t.answer ? [i] : []));
        questions.push({
          chat: chatId,
          kind: q.kind,
          question: q.question,
          answers: idx.map((i) => keyOf.get(block[i]!)!),
        });
      }
    }
    chats.push({ id: chatId, sessions });
  }
  return { chats, questions };
}

if (import.meta.main) {
  const set = conversationSet();
  const turns = set.chats.reduce((n, c) => n + c.sessions.reduce((m, s) => m + s.turns.length, 0), 0);
  const kinds = Object.groupBy(set.questions, (q) => q.kind);
  console.log(
    `${set.chats.length} chats, ${turns} turns (min per chat ${
      Math.min(...set.chats.map((c) => c.sessions.reduce((m, s) => m + s.turns.length, 0)))
    }), ${set.questions.length} questions:`,
    Object.fromEntries(Object.entries(kinds).map(([k, v]) => [k, v!.length])),
  );
  console.log(JSON.stringify(set.chats[0]!.sessions[0]!.turns.slice(0, 12), null, 1));
  console.log(JSON.stringify(set.questions.slice(0, 5), null, 1));
}
