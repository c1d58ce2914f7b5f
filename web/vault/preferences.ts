/**
 * The user's web-app preferences (sidebar layout, editor toggles), kept by the server
 * (GET/PUT /api/me/preferences) so they follow the user to every browser. localStorage holds a
 * copy so the page starts with them when the server cannot be reached, marked unsent until the
 * server has it: a change made just before a reload, or offline, is sent at the next sign-in
 * instead of being replaced by the server's older copy.
 */
import { api, ApiError } from "./api.ts";

export interface Preferences {
  sidebar?: { id: string; visible: boolean }[];
  lineNumbers?: boolean;
  preview?: boolean;
  /** Edit together (live collaborative editing); on unless turned off. */
  live?: boolean;
}

interface Cached {
  prefs: Preferences;
  unsent: boolean;
}

const cacheKey = (userId: string) => `vault.prefs:${userId}`;

function readCache(userId: string): Cached {
  try {
    const v = JSON.parse(localStorage.getItem(cacheKey(userId)) ?? "null") as Cached | null;
    if (v && typeof v.prefs === "object" && v.prefs && !Array.isArray(v.prefs)) return v;
  } catch { /* damaged: start over */ }
  return { prefs: {}, unsent: false };
}

function writeCache(userId: string, c: Cached) {
  try {
    localStorage.setItem(cacheKey(userId), JSON.stringify(c));
  } catch { /* storage off: the server still has them */ }
}

export const cachedPreferences = (userId: string): Preferences => readCache(userId).prefs;

// One PUT at a time, always of the newest document, so an older one never lands last.
let sending = false;
let queued: { userId: string; prefs: Preferences } | undefined;
async function send() {
  if (sending) return;
  sending = true;
  try {
    while (queued) {
      const { userId, prefs } = queued;
      queued = undefined;
      try {
        await api("/api/me/preferences", { method: "PUT", body: prefs });
        if (!queued) writeCache(userId, { prefs, unsent: false });
      } catch (err) {
        // Refused (a document this server does not take): not worth sending again.
        if (err instanceof ApiError && (err.status === 400 || err.status === 413)) {
          writeCache(userId, { prefs, unsent: false });
        }
        return; // offline: the cache stays marked unsent and goes at the next change or sign-in
      }
    }
  } finally {
    sending = false;
  }
}

/** At sign-in: the server's preferences; unsent ones of this browser win (and are sent now). */
export async function loadPreferences(userId: string): Promise<Preferences> {
  const cached = readCache(userId);
  if (cached.unsent) {
    queued = { userId, prefs: cached.prefs };
    await send();
    return cached.prefs;
  }
  try {
    const r = await api<{ preferences: Preferences; updatedAt: string | null }>("/api/me/preferences");
    const legacy = r.updatedAt === null ? legacyPreferences(userId) : undefined;
    if (legacy) {
      savePreferences(userId, legacy);
      return legacy;
    }
    writeCache(userId, { prefs: r.preferences, unsent: false });
    return r.preferences;
  } catch {
    return cached.prefs;
  }
}

/** Keeps `prefs` here at once and sends them to the server. */
export function savePreferences(userId: string, prefs: Preferences) {
  writeCache(userId, { prefs, unsent: true });
  queued = { userId, prefs };
  void send();
}

/**
 * What earlier versions kept in this browser only (`vault.sidebar:<id>`, `vault.pref:<id>:<name>`),
 * moved to the server once when it has nothing yet, so an upgrade keeps the user's layout.
 */
function legacyPreferences(userId: string): Preferences | undefined {
  const prefs: Preferences = {};
  try {
    const sidebar = JSON.parse(localStorage.getItem(`vault.sidebar:${userId}`) ?? "null");
    if (Array.isArray(sidebar)) {
      prefs.sidebar = sidebar.filter((p) => typeof p?.id === "string" && typeof p?.visible === "boolean")
        .map((p) => ({ id: p.id, visible: p.visible }));
    }
  } catch { /* damaged: left out */ }
  for (const name of ["lineNumbers", "preview", "live"] as const) {
    const v = localStorage.getItem(`vault.pref:${userId}:${name}`);
    if (v !== null) prefs[name] = v === "1";
  }
  if (Object.keys(prefs).length === 0) return undefined;
  localStorage.removeItem(`vault.sidebar:${userId}`);
  for (const name of ["lineNumbers", "preview", "live"]) {
    localStorage.removeItem(`vault.pref:${userId}:${name}`);
  }
  return prefs;
}
