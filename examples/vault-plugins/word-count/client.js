/**
 * Word count, the client part: a status-bar item for the open note, refreshed when the note or the
 * plugin's settings change (api.context is reactive). It asks the server part's route.
 */
export function activate(api) {
  const item = api.ui.registerStatusBarItem({ id: "word-count", title: "Word count", text: "" });
  let asked = 0;
  const refresh = async ({ note, settings }) => {
    if (!note) return item.update({ text: "" });
    const ask = ++asked;
    const query = new URLSearchParams({ path: note.path, ...(note.owner ? { owner: note.owner } : {}) });
    const res = await api.fetch(`/count?${query}`);
    if (ask !== asked || !res.ok) return;
    const c = await res.json();
    const chars = settings.showCharacters ? ` · ${c.characters} characters` : "";
    item.update({ text: `${c.words} words${chars} · ${c.minutes} min read` });
  };
  const stop = api.context.subscribe(refresh);
  // A toggle in the top bar flips this user's own setting (per user in the manifest).
  api.ui.registerTopbarAction({
    id: "word-count-characters",
    title: "Show or hide characters in the word count",
    icon: "Aa",
    run: () => api.context.setPluginSetting("showCharacters", !api.context.get().settings.showCharacters),
  });
  return () => {
    stop();
    item.remove();
  };
}
