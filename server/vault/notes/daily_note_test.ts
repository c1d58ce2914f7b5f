import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFromTemplate, dailyNotePath, listTemplates, openDailyNote } from "./daily_note.ts";
import { InvalidPathError, NoteError } from "./errors.ts";
import { NoteStore } from "./note_store.ts";

const DAY = new Date("2026-03-09T07:15:00Z");

describe("daily notes and templates", () => {
  let dataDir: string;
  let store: NoteStore;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "daily-"));
    store = new NoteStore({ dataDir });
    await store.create("u", "Templates/Daily.md", "# {{title}}\nCreated {{date:dddd}} at {{time}}\n");
    await store.create("u", "Templates/Meeting.md", "# {{title}} ({{date}})\n");
  });
  after(async () => await rm(dataDir, { recursive: true, force: true }));

  it("puts the note where folder and format say, sub-folders included", () => {
    assert.equal(dailyNotePath(DAY), "2026-03-09.md");
    assert.equal(
      dailyNotePath(DAY, { folder: "Journal", format: "YYYY/MM/YYYY-MM-DD ddd" }),
      "Journal/2026/03/2026-03-09 Mon.md",
    );
    assert.throws(() => dailyNotePath(DAY, { folder: "../x" }), InvalidPathError);
    // `..` that a path join would have collapsed into another folder is refused all the same.
    assert.throws(() => dailyNotePath(DAY, { folder: "a/../Daily" }), InvalidPathError);
    assert.throws(() => dailyNotePath(DAY, { format: "[a]/[..]/[..]/YYYY" }), InvalidPathError);
    assert.throws(() => dailyNotePath(DAY, { folder: "Daily", format: "[..]/YYYY" }), InvalidPathError);
    assert.equal(dailyNotePath(DAY, { folder: "./Daily/", format: "YYYY" }), "Daily/2026.md");
    assert.throws(() => dailyNotePath(DAY, { timeZone: "Nowhere/Else" }), /IANA time zone/);
  });

  it("creates a missing daily note from the template once, then opens it", async () => {
    const cfg = { folder: "Daily", template: "Templates/Daily.md", timeZone: "Europe/Berlin" };
    const first = await openDailyNote(store, "u", DAY, cfg);
    assert.equal(first.created, true);
    assert.equal(first.note.path, "Daily/2026-03-09.md");
    assert.equal(first.note.content, "# 2026-03-09\nCreated Monday at 08:15\n");
    await store.update("u", first.note.path, "my day");
    const again = await openDailyNote(store, "u", DAY, cfg);
    assert.deepEqual([again.created, again.note.content], [false, "my day"]);
    // Two opens racing for a new day make one note.
    const next = new Date("2026-03-10T07:00:00Z");
    const both = await Promise.all([
      openDailyNote(store, "u", next, cfg),
      openDailyNote(store, "u", next, cfg),
    ]);
    assert.deepEqual(both.map((r) => r.created).sort(), [false, true]);
  });

  it("says clearly when the configured template is missing, and creates nothing", async () => {
    await assert.rejects(
      openDailyNote(store, "u", DAY, { folder: "X", template: "Templates/Gone.md" }),
      (err: unknown) => {
        assert.ok(err instanceof NoteError);
        assert.equal(err.message, "template Templates/Gone.md not found");
        return true;
      },
    );
    await assert.rejects(store.read("u", "X/2026-03-09.md"), NoteError);
  });

  it("lists templates and creates notes from them", async () => {
    assert.deepEqual(await listTemplates(store, "u"), ["Templates/Daily.md", "Templates/Meeting.md"]);
    const meta = await createFromTemplate(store, "u", "Templates/Meeting.md", "Meetings/Kickoff.md", {
      now: DAY,
    });
    assert.equal((await store.read("u", meta.path)).content, "# Kickoff (2026-03-09)\n");
    await assert.rejects(
      createFromTemplate(store, "u", "Templates/Meeting.md", "Meetings/Kickoff.md"),
      NoteError,
    );
  });
});
