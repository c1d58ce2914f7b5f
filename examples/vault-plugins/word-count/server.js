/**
 * Word count, the server part: a route the status-bar item (client.js) and MCP agents call
 * (GET /api/plugins/word-count/count?path=..., tool `word-count_count_words`), and per-user totals
 * kept in the plugin's storage as notes are saved and deleted.
 */

/** Words outside front matter and fenced code; characters of the whole text. */
export function countWords(text) {
  const body = text.replace(/^---\n[\s\S]*?\n---\n/, "").replace(/^```[\s\S]*?^```/gm, "");
  const words = body.match(/[\p{L}\p{N}][\p{L}\p{N}'’_-]*/gu)?.length ?? 0;
  return { words, characters: [...text].length };
}

export function activate(api) {
  const counts = async (userId) => (await api.storage.get("counts", userId)) ?? {};

  api.routes.register("GET", "/count", async (req) => {
    const path = req.query.path;
    if (!path) return { status: 400, body: { error: "path is required" } };
    const note = await api.notes.get(path, req.query.owner);
    const { words, characters } = countWords(note.content);
    const perMinute = (await api.settings.get("wordsPerMinute")) || 200;
    return { path, words, characters, minutes: Math.max(1, Math.round(words / perMinute)) };
  }, {
    name: "count_words",
    description: "Count the words, characters and reading minutes of a note (query: path)",
  });

  api.routes.register("GET", "/totals", async (req) => {
    const all = await counts(req.user.id);
    const words = Object.values(all).reduce((a, b) => a + b, 0);
    return { notes: Object.keys(all).length, words };
  }, { name: "totals", description: "Notes counted and their words, for the calling user" });

  api.events.on("note:afterSave", async ({ path, userId }) => {
    const note = await api.notes.get(path);
    const all = await counts(userId);
    all[path] = countWords(note.content).words;
    await api.storage.set("counts", all, userId);
  });
  api.events.on("note:afterDelete", async ({ path, userId }) => {
    const all = await counts(userId);
    delete all[path];
    await api.storage.set("counts", all, userId);
  });
  api.events.on("note:afterRename", async ({ from, path, userId }) => {
    const all = await counts(userId);
    if (from in all) all[path] = all[from];
    delete all[from];
    await api.storage.set("counts", all, userId);
  });
  api.log.info("word count ready");
}
