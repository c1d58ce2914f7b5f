/**
 * Public conversational-memory sets for scripts/bench/recall.ts: chats written by people, with the turns
 * that answer each question labelled, read at bench time from a cache outside the repository and never
 * committed (neither their data nor their code).
 *
 * - **REALTALK** (github.com/danny911kr/REALTALK, arXiv 2502.13270): ten 16–25-day chats between real
 *   people over a messaging app, 8,944 messages, 738 memory-probing questions written by the authors with
 *   their evidence messages (`dia_id`s). Categories: 1 fact, 2 date, 3 inference. The repository states
 *   no licence: read for evaluation here, never redistributed. Its `data/locomo/` holds a copy of LoCoMo,
 *   which this project keeps out of every measurement it tunes on: only the ten `data/Chat_*.json` files
 *   are read, by path and blob id.
 * - **FriendsQA** (github.com/emorynlp/FriendsQA, Apache-2.0): transcripts of the TV series Friends
 *   (seasons 1–4, episodes 21–25) with questions written by annotators, each answered by spans of named
 *   utterances. Each episode is one chat, each scene one session (4,000–5,000 utterances in 17 episodes,
 *   2,383 questions); the questions name neither episode nor scene, so each is a search over its
 *   episode's ~300 utterances. Kinds: the question word (what, who, when, where, why, how).
 *
 * Getting them. Each set is pinned to a commit and to the git blob ids of its files; `ensureSet` copies
 * the files from a git directory holding that commit into the cache, checking every blob id:
 *
 *   git clone https://github.com/danny911kr/REALTALK /tmp/REALTALK        # where GitHub is reachable
 *   deno run -A scripts/bench/public_sets.ts realtalk --from /tmp/REALTALK
 *
 * Without `--from` the mirror copy made by the workplace's fetch tool (/work/.mirror/<owner>+<name>/repo)
 * is tried. The cache is ${TOOLKIT_RECALL_CACHE:-${XDG_CACHE_HOME:-~/.cache}/toolkit-recall}. A set that is
 * neither cached nor found is skipped by recall.ts with a message saying how to get it.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { Chat, ConversationSet, Question, Session, Turn } from "./conversations.ts";

export interface SourceFile {
  path: string;
  /** The file's git blob id at `commit`: what is read, and what the cached copy is checked against. */
  blob: string;
}

export interface PublicSource {
  name: string;
  /** owner/name on GitHub. */
  repo: string;
  commit: string;
  licence: string;
  files: SourceFile[];
  /** The set from the files' text, by path. Chats in a fixed order (the split alternates over it). */
  load(files: ReadonlyMap<string, string>): ConversationSet;
}

export function cacheRoot(): string {
  return process.env.TOOLKIT_RECALL_CACHE ||
    join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "toolkit-recall");
}

/** Git's object id of a blob: sha1 of "blob <length>\0" and the bytes. */
export function gitBlobId(bytes: Uint8Array): string {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/** Where a source's files would be found without `--from`: the fetch tool's mirror. */
export function mirrorCandidates(source: PublicSource): string[] {
  const base = join("/work/.mirror", source.repo.replace("/", "+"), "repo");
  return [base, join(base, ".git")];
}

function gitDirOf(dir: string): string {
  return existsSync(join(dir, ".git")) ? join(dir, ".git") : dir;
}

/** How to get a missing set, for the message recall.ts prints. */
export function howToGet(source: PublicSource): string {
  return `${source.name} is not in ${
    join(cacheRoot(), source.name)
  }: clone https://github.com/${source.repo} ` +
    `(commit ${
      source.commit.slice(0, 7)
    }) and run \`deno run -A scripts/bench/public_sets.ts ${source.name} ` +
    `--from <clone>\` (docs/benchmarks.md, "Public sets")`;
}

/**
 * The source's files, from the cache or copied into it from a git directory (`from`, else the mirror).
 * Undefined when neither has them; throws when a copy does not match its pinned blob id.
 */
export function ensureSet(source: PublicSource, from?: string): Map<string, string> | undefined {
  const dir = join(cacheRoot(), source.name, source.commit);
  const out = new Map<string, string>();
  const missing = source.files.filter((f) => {
    const file = join(dir, f.path);
    if (!existsSync(file)) return true;
    const bytes = readFileSync(file);
    if (gitBlobId(bytes) !== f.blob) return true;
    out.set(f.path, bytes.toString("utf8"));
    return false;
  });
  if (missing.length === 0) return out;
  const dirs = from
    ? [gitDirOf(from)]
    : mirrorCandidates(source).filter((d) => existsSync(join(d, "objects")));
  for (const gitDir of dirs) {
    const read = (blob: string) => {
      try {
        return execFileSync("git", ["--git-dir", gitDir, "cat-file", "blob", blob], {
          maxBuffer: 64 << 20,
          stdio: ["ignore", "pipe", "ignore"],
        });
      } catch {
        return undefined;
      }
    };
    const got = missing.map((f) => ({ f, bytes: read(f.blob) }));
    if (got.some((g) => !g.bytes)) {
      if (from) throw new Error(`${from} does not hold ${source.repo} at ${source.commit}`);
      continue;
    }
    for (const { f, bytes } of got) {
      if (gitBlobId(bytes!) !== f.blob) throw new Error(`${f.path}: content does not match blob ${f.blob}`);
      const file = join(dir, f.path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(`${file}.tmp`, bytes!);
      renameSync(`${file}.tmp`, file);
      out.set(f.path, bytes!.toString("utf8"));
    }
    return out;
  }
  return undefined;
}

/** "29.12.2023, 22:42:04" → "2023-12-29". */
function dayOf(dmy: string | undefined): string {
  const m = /^(\d{1,2})\.(\d{1,2})\.(\d{4})/.exec(dmy ?? "");
  return m ? `${m[3]}-${m[2]!.padStart(2, "0")}-${m[1]!.padStart(2, "0")}` : "";
}

/**
 * REALTALK's evidence ids as written: mostly "D3:24", also ranges ("D12:3-D12:5", "D12:3-5"), several in
 * one string ("D5:12;D5:16", "D13:4. D14:4", "D13:45:D20:19") and "D17;39" for "D17:39".
 */
export function evidenceIds(evidence: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of evidence) {
    const text = raw.replace(/D(\d+);(\d+)/g, "D$1:$2");
    const range = /D(\d+):(\d+)\s*-\s*(?:D(\d+):)?(\d+)/g;
    for (const m of text.matchAll(range)) {
      const [s, from, s2, to] = [m[1]!, Number(m[2]), m[3] ?? m[1]!, Number(m[4])];
      if (s2 === s && to >= from && to - from < 50) {
        for (let i = from; i <= to; i++) out.push(`D${s}:${i}`);
      }
    }
    for (const m of text.replace(range, " ").matchAll(/D(\d+):(\d+)/g)) out.push(`D${m[1]}:${m[2]}`);
  }
  return [...new Set(out)];
}

const REALTALK_CATEGORIES: Record<number, string> = { 1: "fact", 2: "date", 3: "inference" };

/** A REALTALK chat file (LoCoMo's format with REALTALK's field names). */
export function loadRealtalkChat(id: string, text: string): { chat: Chat; questions: Question[] } {
  const d = JSON.parse(text) as Record<string, unknown>;
  const sessions: Session[] = [];
  const keyOf = new Map<string, string>();
  for (let n = 1; Array.isArray(d[`session_${n}`]); n++) {
    const messages = d[`session_${n}`] as { clean_text?: string; speaker?: string; dia_id?: string }[];
    const turns: Turn[] = [];
    for (const m of messages) {
      const text = (m.clean_text ?? "").trim();
      if (!text || !m.dia_id) continue;
      const key = `${id}-${m.dia_id}`;
      keyOf.set(m.dia_id.trim(), key);
      turns.push({ key, speaker: m.speaker, text });
    }
    sessions.push({ id: `${id}-s${n}`, date: dayOf(d[`session_${n}_date_time`] as string), turns });
  }
  const questions: Question[] = [];
  for (const q of d.qa as { question: string; evidence?: string[]; category?: number }[]) {
    // Evidence of a message without text (a photo) is left out; a question with none is skipped.
    const answers = [
      ...new Set(evidenceIds(q.evidence ?? []).map((e) => keyOf.get(e)).filter((k) => k !== undefined)),
    ];
    if (answers.length === 0) continue;
    questions.push({
      chat: id,
      kind: REALTALK_CATEGORIES[q.category ?? 0] ?? `category ${q.category}`,
      question: q.question,
      answers,
    });
  }
  return { chat: { id, sessions }, questions };
}

export const REALTALK: PublicSource = {
  name: "realtalk",
  repo: "danny911kr/REALTALK",
  commit: "b903e06a9770bf4e5fe9018c3e132889666d3b4a",
  licence: "none stated (read for evaluation only, not redistributed)",
  files: [
    { path: "data/Chat_1_Emi_Elise.json", blob: "3a3205c099754dc8e80103d3b6a292f69308cf3f" },
    { path: "data/Chat_2_Kevin_Elise.json", blob: "121bb479785de23c8c14c46cb364dc9415dac81f" },
    { path: "data/Chat_3_Kevin_Paola.json", blob: "cc6603969b914d7cf7c36eec3c4f939e1c57c2d9" },
    { path: "data/Chat_4_Emi_Paola.json", blob: "82c4ce8e090e14613c00bd4338cc4ff1f856fec3" },
    { path: "data/Chat_5_Nicolas_Nebraas.json", blob: "a70204080608ba6923a1ce978dbf846fe19559ab" },
    { path: "data/Chat_6_Vanessa_Nicolas.json", blob: "f58aff66d3a757c12f06bde92c40d20f382e19f3" },
    { path: "data/Chat_7_Nebraas_Vanessa.json", blob: "ef666c493e96b7539d5e6c0764ed9efdf8fe44bc" },
    { path: "data/Chat_8_Akib_Muhhamed.json", blob: "d3b96f06130f254e20a2fea6fd581a4147c2584f" },
    { path: "data/Chat_9_Fahim_Akib.json", blob: "5dabb998f6c208936f11bd35ec3ce5ab96f53eca" },
    { path: "data/Chat_10_Fahim_Muhhamed.json", blob: "ff0d44bae354cd1d892224b5ede6be871d7f5adf" },
  ],
  load(files) {
    const set: ConversationSet = { chats: [], questions: [] };
    for (const f of this.files) {
      const id = `rt${/Chat_(\d+)_/.exec(f.path)![1]!.padStart(2, "0")}`;
      const { chat, questions } = loadRealtalkChat(id, files.get(f.path)!);
      set.chats.push(chat);
      set.questions.push(...questions);
    }
    return set;
  },
};

/**
 * FriendsQA's text is tokenised ("You 're gon na kill me !"); a person would have typed "You're gonna
 * kill me!", which is what a memory store is given.
 */
export function detokenize(text: string): string {
  return text
    .replace(/\s+/g, " ")
    .replace(/\b(gon|wan|got) (na|ta)\b/gi, "$1$2")
    .replace(/ (n't|'s|'re|'m|'ll|'ve|'d)\b/gi, "$1")
    .replace(/ ([.,!?;:%)\]])/g, "$1")
    .replace(/([(\[]) /g, "$1")
    .trim();
}

interface FriendsScene {
  title: string;
  paragraphs: {
    "utterances:": { uid: number; speakers: string[]; utterance: string }[];
    qas: { id: string; question: string; answers: { utterance_id: number }[] }[];
  }[];
}

/** FriendsQA's scenes grouped into episodes (chats), scenes in order as sessions. */
export function loadFriendsQA(texts: string[]): ConversationSet {
  const scenes = texts.flatMap((t) => (JSON.parse(t) as { data: FriendsScene[] }).data);
  const byEpisode = new Map<string, FriendsScene[]>();
  for (const s of scenes) {
    const episode = s.title.slice(0, 7); // s01_e23
    byEpisode.set(episode, [...(byEpisode.get(episode) ?? []), s]);
  }
  const set: ConversationSet = { chats: [], questions: [] };
  for (const episode of [...byEpisode.keys()].sort()) {
    const sessions: Session[] = [];
    for (const scene of byEpisode.get(episode)!.sort((a, b) => a.title.localeCompare(b.title))) {
      for (const [p, para] of scene.paragraphs.entries()) {
        const sid = `${scene.title}-p${p}`;
        const turns: Turn[] = [];
        for (const u of para["utterances:"]) {
          const text = detokenize(u.utterance);
          if (!text) continue;
          // Scene notes ("[Scene: Central Perk …]") have the speaker #NOTE#; lines for everyone #ALL#.
          const speaker = u.speakers.filter((s) => !s.startsWith("#")).join(", ");
          turns.push({ key: `${sid}-u${u.uid}`, ...(speaker ? { speaker } : {}), text });
        }
        const have = new Set(turns.map((t) => t.key));
        for (const q of para.qas) {
          const answers = [...new Set(q.answers.map((a) => `${sid}-u${a.utterance_id}`))].filter((k) =>
            have.has(k)
          );
          if (answers.length === 0) continue;
          const word = /_(What|Who|When|Where|Why|How)(?:_|$)/i.exec(q.id)?.[1]?.toLowerCase() ?? "other";
          set.questions.push({ chat: episode, kind: word, question: q.question, answers });
        }
        sessions.push({ id: sid, date: "", turns });
      }
    }
    set.chats.push({ id: episode, sessions });
  }
  return set;
}

export const FRIENDSQA: PublicSource = {
  name: "friendsqa",
  repo: "emorynlp/FriendsQA",
  commit: "9ce6c98a6acf13c87d96b6811e4409b5de43bdfe",
  licence: "Apache-2.0",
  files: [
    { path: "dat/friendsqa_dev.json", blob: "89a1d75c33c78907aa923736ffc135cc92bdc8d7" },
    { path: "dat/friendsqa_tst.json", blob: "07071bc6a694efc3c2ba040528a68f9e5325fb70" },
  ],
  load(files) {
    return loadFriendsQA(this.files.map((f) => files.get(f.path)!));
  },
};

export const PUBLIC_SOURCES: readonly PublicSource[] = [REALTALK, FRIENDSQA];

export type Half = "dev" | "held" | "all";

/**
 * The fixed split: chats alternate in the set's order, even positions to the dev half (where every
 * constant is chosen), odd ones held back (reported once, at the end). Questions follow their chat.
 */
export function splitSet(set: ConversationSet, half: Half): ConversationSet {
  if (half === "all") return set;
  const chats = set.chats.filter((_, i) => (i % 2 === 0) === (half === "dev"));
  const ids = new Set(chats.map((c) => c.id));
  return { chats, questions: set.questions.filter((q) => ids.has(q.chat)) };
}

if (import.meta.main) {
  const name = process.argv[2];
  const source = PUBLIC_SOURCES.find((s) => s.name === name);
  if (!source) {
    console.error(
      `usage: public_sets.ts <${PUBLIC_SOURCES.map((s) => s.name).join("|")}> [--from <git clone or dir>]`,
    );
    process.exit(2);
  }
  const at = process.argv.indexOf("--from");
  const files = ensureSet(source, at > 0 ? process.argv[at + 1] : undefined);
  if (!files) {
    console.error(howToGet(source));
    process.exit(1);
  }
  const set = source.load(files);
  const turns = set.chats.reduce((n, c) => n + c.sessions.reduce((m, s) => m + s.turns.length, 0), 0);
  const kinds = Object.groupBy(set.questions, (q) => q.kind);
  console.log(
    `${source.name} in ${join(cacheRoot(), source.name)}: ${set.chats.length} chats, ${turns} turns, ` +
      `${set.questions.length} questions`,
    Object.fromEntries(Object.entries(kinds).map(([k, v]) => [k, v!.length])),
  );
}
