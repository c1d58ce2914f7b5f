/**
 * Black-box: plugins in the vault web app, in Chromium against `dist/vault`. The admin installs and
 * enables the two example plugins through the admin panel; word-count's status item follows the note
 * and its top-bar toggle flips the per-user setting; table-fence renders a ```table fence in the
 * preview (static) and in the editor (editable cells written back through replaceFenceAtRange and
 * saved). Plugins the test writes use the other slots (sidebar panel, settings section, the
 * lineNumbers option, closePane), throw in activate (isolated: a notice, the app goes on), and put
 * HTML in every title and text the app shows (it never runs). Fails on any console error, page error,
 * off-host request or unnamed control. Screenshots go to test-artifacts/vault-web/.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { ROOT, type RunningBinary } from "../harness/binary.ts";
import { browserSkipReason, launchBrowser, type WatchedPage, watchedPage } from "../harness/browser.ts";
import { VaultClient } from "../harness/vault.ts";
import {
  type Account,
  editor,
  editorText,
  eventually,
  sessionCookie,
  shootAll,
  signUpInPage,
  startVaultWeb,
  WEB_ARTIFACTS,
} from "../harness/vault_web.ts";

const ADA: Account = { name: "Ada", email: "ada@example.test", password: "ada-Pa55word-123" };
const RUN = "window.__xss=1";
/** HTML in everything a plugin hands the app to show. */
const XSS = {
  name: `<img src=x onerror="${RUN}">Evil`,
  action: `<img src=x onerror="${RUN}">`,
  icon: `<svg onload="${RUN}"></svg>`,
  status: `<script>${RUN}</script><b onmouseover="${RUN}">status</b>`,
  statusTitle: `"><img src=x onerror="${RUN}">`,
  panel: `<iframe src="javascript:${RUN}"></iframe>panel`,
  section: `<details open ontoggle="${RUN}">section</details>`,
  error: `<img src=y onerror="${RUN}">thrown`,
};

/** A plugin folder with a client entry (written by the test). */
async function writePlugin(root: string, id: string, name: string, client: string) {
  const dir = join(root, id);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, "manifest.json"),
    JSON.stringify({ id, name, version: "1.0.0", client: "client.js" }),
  );
  await writeFile(join(dir, "client.js"), client);
  return dir;
}

describe("vault web app: plugins", { skip: browserSkipReason() }, () => {
  let server: RunningBinary;
  let url: string;
  let home: string;
  let fixtures: string;
  let browser: Browser;
  let ada: WatchedPage;
  let api: VaultClient;
  let dialogs = 0;
  const status = () => ada.page.locator('.statusbar [data-plugin="word-count"]');

  before(async () => {
    ({ server, url, home } = await startVaultWeb("vault-web-plugins-"));
    fixtures = await mkdtemp(join(tmpdir(), "vault-web-plugin-fixtures-"));
    browser = await launchBrowser();
    ada = await watchedPage(browser, url);
    // Before any script of the page: a payload that runs flips the flag or opens a dialog.
    await ada.context.addInitScript(`
      window.__xss = 0;
      for (const name of ["alert", "confirm", "prompt", "print"]) window[name] = () => { window.__xss = 2; };
    `);
    ada.page.on("dialog", (d) => {
      dialogs++;
      void d.dismiss();
    });
  });

  after(async () => {
    await browser?.close();
    const code = await server?.stop();
    if (code !== 0 && code !== null) console.error(server.output());
    if (home) await rm(home, { recursive: true, force: true });
    if (fixtures) await rm(fixtures, { recursive: true, force: true });
  });

  it("the admin installs and enables the example plugins in the admin panel", async () => {
    const { page } = ada;
    await signUpInPage(page, ADA);
    api = new VaultClient(url, { cookie: await sessionCookie(page) });
    await page.getByRole("link", { name: "Admin" }).click();
    const plugins = page.getByRole("region", { name: "Plugins" });
    await plugins.getByText("No plugins installed.").waitFor();
    for (const [id, name] of [["word-count", "Word count"], ["table-fence", "Table fences"]]) {
      await page.getByLabel("Install from a folder on the server").fill(
        join(ROOT, "examples/vault-plugins", id!),
      );
      await page.getByRole("button", { name: "Install", exact: true }).click();
      const row = page.locator(`.plugin-row[data-plugin="${id}"]`);
      await row.locator(".plugin-state", { hasText: "installed" }).waitFor();
      await page.getByRole("button", { name: `Enable ${name}` }).click();
      await row.locator(".plugin-state", { hasText: "active" }).waitFor();
      await page.getByRole("button", { name: `Disable ${name}` }).waitFor();
    }
    // A second install of the same folder is refused (409), shown in the panel.
    ada.expectHttpError("/api/admin/plugins", 409);
    await page.getByLabel("Install from a folder on the server").fill(
      join(ROOT, "examples/vault-plugins/word-count"),
    );
    await page.getByRole("button", { name: "Install", exact: true }).click();
    await plugins.getByRole("alert").waitFor();
    // Global settings by their types: a number.
    await page.getByLabel("Reading speed (words per minute)").fill("2");
    await page.locator('.plugin-row[data-plugin="word-count"]').getByRole("button", { name: "Save" }).click();
    await page.locator('.plugin-row[data-plugin="word-count"]').getByRole("status").filter({
      hasText: "Saved.",
    })
      .waitFor();
    const listed = (await api.get("/api/admin/plugins")).body.plugins as { id: string; values: object }[];
    assert.equal(
      (listed.find((p) => p.id === "word-count")!.values as { wordsPerMinute: number }).wordsPerMinute,
      2,
    );
    await shootAll(ada, "admin-plugins");
    ada.assertClean();
  });

  it("word-count's status item follows the note, and its top-bar toggle flips the per-user setting", async () => {
    const { page } = ada;
    await api.write("POST", "/api/notes", { path: "Count.md", content: "one two three" });
    await page.goto("/?note=Count.md");
    await eventually(async () => assert.equal(await status().innerText(), "3 words · 2 min read"), 15_000);
    // A figure, not a limit: from navigation to the plugin's status item showing the count.
    const statusShownMs = Math.round(await page.evaluate("performance.now()") as number);
    await mkdir(WEB_ARTIFACTS, { recursive: true });
    await writeFile(
      join(WEB_ARTIFACTS, "plugins-first-load.json"),
      JSON.stringify({ statusShownMs }, null, 2),
    );
    await editor(page).click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type(" four five");
    // Editing together (the default), the server writes the text back; that save changes the context's
    // note (its version) and the item asks again.
    await eventually(async () => assert.equal(await status().innerText(), "5 words · 3 min read"), 15_000);
    await page.getByRole("button", { name: "Show or hide characters in the word count" }).click();
    await eventually(async () =>
      assert.equal(await status().innerText(), "5 words · 23 characters · 3 min read")
    );
    const mine = (await api.get("/api/plugins/word-count/settings")).body;
    assert.equal(mine.values.showCharacters, true);
    await shootAll(ada, "plugins-status");
    ada.assertClean();
  });

  it("table-fence renders a table fence in the preview (static) and in the editor (cells edit the note)", async () => {
    const { page } = ada;
    const content = "# Team\n\n```table\nName | Role\nAda | lead\n```\n\nAfter.\n";
    await api.write("POST", "/api/notes", { path: "Team.md", content });
    await page.goto("/?note=Team.md");
    const preview = page.locator(
      "section.note:not([hidden]) .preview .plugin-fence table.plugin-table-fence",
    );
    await preview.getByRole("columnheader", { name: "Name" }).waitFor();
    await preview.getByRole("cell", { name: "lead" }).waitFor();
    assert.equal(await preview.locator("[contenteditable]").count(), 0, "the preview's table is static");
    const inEditor = editor(page).locator(".plugin-fence.interactive table.plugin-table-fence");
    const cell = inEditor.getByRole("cell", { name: "lead" });
    assert.equal(await cell.getAttribute("contenteditable"), "true");
    await cell.click();
    await page.keyboard.press("Control+A");
    assert.equal(await page.evaluate("getSelection().toString()"), "lead", "select-all stays in the cell");
    await page.keyboard.type("principal");
    await page.locator("section.note:not([hidden]) .note-path").click(); // blur: the cell writes back
    const expected = "# Team\n\n```table\nName | Role\nAda  | principal\n```\n\nAfter.\n";
    await eventually(async () => assert.equal(await editorText(page), expected));
    // The autosave takes it to the server.
    await eventually(
      async () => assert.equal((await api.get("/api/notes?path=Team.md")).body.content, expected),
      15_000,
    );
    await preview.getByRole("cell", { name: "principal" }).waitFor();
    await shootAll(ada, "plugins-table-fence");
    ada.assertClean();
  });

  it("plugins' sidebar panels, settings sections, editor option and closePane; a throwing plugin is isolated", async () => {
    const { page } = ada;
    const slots = await writePlugin(
      fixtures,
      "test-slots",
      "Test slots",
      `export function activate(api) {
        api.editor.setOption("lineNumbers", false);
        api.ui.registerSidebarPanel({ id: "hello", title: "Hello panel", render(el) {
          const p = document.createElement("p");
          const show = (c) => (p.textContent = "note: " + (c.note ? c.note.path : "none"));
          const stop = api.context.subscribe(show);
          el.append(p);
          return stop;
        } });
        api.ui.registerSettingsSection({ id: "prefs", title: "Test slots section", render(el) {
          el.textContent = "a section of " + api.plugin.id + " " + api.plugin.version;
        } });
        api.ui.registerTopbarAction({ id: "close", title: "Close this pane", icon: "⨯", run: () => api.ui.closePane() });
        api.ui.registerTopbarAction({ id: "lines", title: "Line numbers back", run: () => api.editor.setOption("lineNumbers", true) });
      }`,
    );
    const throws = await writePlugin(
      fixtures,
      "test-throws",
      "Test throws",
      `export function activate(api) {
        api.ui.registerTopbarAction({ id: "orphan", title: "Orphan action", run() {} });
        throw new Error("boom in activate");
      }`,
    );
    for (const dir of [slots, throws]) {
      const p = (await api.write("POST", "/api/admin/plugins", { directory: dir })).body;
      assert.equal((await api.write("POST", `/api/admin/plugins/${p.id}/enable`)).status, 200);
    }
    await page.goto("/?note=Count.md");
    // The failing plugin: a notice in the status bar, its registrations gone, the rest working.
    await page.locator(".statusbar .failed", {
      hasText: "Plugin test-throws failed (activate: boom in activate)",
    })
      .waitFor();
    assert.equal(await page.getByRole("button", { name: "Orphan action" }).count(), 0);
    await eventually(async () => assert.match(await status().innerText(), /5 words/));
    // The panel, with the reactive context.
    // A plugin's panel is a tab of the sidebar like the built-in ones.
    await page.getByRole("tab", { name: "Hello panel" }).click();
    const panel = page.getByRole("tabpanel", { name: "Hello panel" });
    await panel.getByText("note: Count.md").waitFor();
    await page.goto("/?note=Team.md");
    await page.getByRole("tab", { name: "Hello panel" }).click();
    await page.getByRole("tabpanel", { name: "Hello panel" }).getByText("note: Team.md").waitFor();
    // Line numbers: the plugin turned them off, and the toggle says so; its other action brings them back.
    const toggle = page.getByRole("checkbox", { name: "Line numbers" });
    assert.equal(await toggle.isChecked(), false);
    assert.equal(await page.locator("section.note:not([hidden]) .cm-lineNumbers").count(), 0);
    await page.getByRole("button", { name: "Line numbers back" }).click();
    await eventually(async () => assert.equal(await toggle.isChecked(), true));
    await page.locator("section.note:not([hidden]) .cm-lineNumbers").waitFor();
    // The panel is arranged like the others: hidden, and shown again.
    await page.getByRole("button", { name: "Arrange sidebar panels" }).click();
    const dialog = page.getByRole("dialog", { name: "Sidebar panels" });
    await dialog.getByRole("checkbox", { name: "Hello panel" }).uncheck();
    await dialog.getByRole("button", { name: "Move Hello panel up" }).click();
    await dialog.getByRole("button", { name: "Done" }).click();
    assert.equal(await page.getByRole("tab", { name: "Hello panel" }).count(), 0);
    // The layout is the user's preference on the server, plugin panels included.
    await eventually(async () => {
      const layout = ((await api.get("/api/me/preferences")).body.preferences.sidebar ?? []) as {
        id: string;
        visible: boolean;
      }[];
      assert.deepEqual(layout.at(-2), { id: "plugin:test-slots:hello", visible: false });
    });
    await shootAll(ada, "plugins-slots");
    // closePane closes the note shown.
    await page.getByRole("button", { name: "Close this pane" }).click();
    await page.getByRole("tab", { name: "Team" }).waitFor({ state: "detached" });
    // The settings page: the section, and the per-user settings form (word-count's toggle is on).
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByRole("region", { name: "Test slots section" }).getByText("a section of test-slots 1.0.0")
      .waitFor();
    const chars = page.getByLabel("Show characters too");
    assert.equal(await chars.isChecked(), true);
    await chars.uncheck();
    await page.locator(".plugin-user-settings", { hasText: "Word count" }).getByRole("button", {
      name: "Save",
    })
      .click();
    await eventually(async () =>
      assert.equal((await api.get("/api/plugins/word-count/settings")).body.values.showCharacters, false)
    );
    // table-fence's per-user header setting, changed here, reaches the renderer without a reload.
    const header = page.getByLabel("First row is the header");
    assert.equal(await header.isChecked(), true);
    await header.uncheck();
    await page.locator(".plugin-user-settings", { hasText: "Table fences" }).getByRole("button", {
      name: "Save",
    })
      .click();
    await page.locator(".plugin-user-settings", { hasText: "Table fences" }).getByRole("status")
      .filter({ hasText: "Saved." }).waitFor();
    await page.getByRole("link", { name: "Notes" }).click();
    await page.locator('[data-path="Team.md"] button.name').click();
    const table = page.locator("section.note:not([hidden]) .preview table.plugin-table-fence");
    await table.getByRole("cell", { name: "Name", exact: true }).waitFor();
    assert.equal(await table.getByRole("columnheader").count(), 0);
    await shootAll(ada, "settings-plugins");
    ada.assertClean();
  });

  it("HTML in a plugin's titles, texts, icon, name and errors is shown as text and never runs", async () => {
    const { page } = ada;
    const dir = join(fixtures, "xss-output");
    await mkdir(dir, { recursive: true });
    await writeFile(
      join(dir, "manifest.json"),
      JSON.stringify({
        id: "xss-output",
        name: XSS.name,
        version: "1.0.0",
        description: XSS.section,
        client: "client.js",
        settings: [{ key: "k", type: "string", label: XSS.action, perUser: true }],
      }),
    );
    await writeFile(
      join(dir, "client.js"),
      `const X = ${JSON.stringify(XSS)};
      export function activate(api) {
        api.ui.registerTopbarAction({ id: "x", title: X.action, icon: X.icon, run() {} });
        api.ui.registerStatusBarItem({ id: "x", title: X.statusTitle, text: X.status });
        api.ui.registerSidebarPanel({ id: "x", title: X.panel, render(el) { el.textContent = X.panel; } });
        api.ui.registerSettingsSection({ id: "x", title: X.section, render() {} });
        api.context.subscribe(() => { throw new Error(X.error); });
      }`,
    );
    await api.write("POST", "/api/admin/plugins", { directory: dir });
    assert.equal((await api.write("POST", "/api/admin/plugins/xss-output/enable")).status, 200);
    await page.goto("/?note=Count.md");
    await page.getByRole("button", { name: XSS.action }).getByText(XSS.icon).waitFor();
    await page.locator('.statusbar [data-plugin="xss-output"]').getByText(XSS.status).waitFor();
    await page.getByRole("tab", { name: XSS.panel }).click();
    await page.getByRole("tabpanel", { name: XSS.panel }).waitFor();
    await page.locator(".statusbar .failed", { hasText: XSS.error }).first().waitFor();
    await assertInert("notes");
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByRole("region", { name: XSS.section }).waitFor();
    await page.getByRole("textbox", { name: XSS.action }).waitFor();
    await assertInert("settings");
    await page.getByRole("link", { name: "Admin" }).click();
    await page.locator('.plugin-row[data-plugin="xss-output"] strong').getByText(XSS.name).waitFor();
    await assertInert("admin");
    ada.assertClean();
  });

  /** Nothing ran, no dialog, and the page holds no handler attribute, javascript: URL or frame. */
  async function assertInert(where: string) {
    const { page } = ada;
    assert.equal(await page.evaluate("window.__xss"), 0, `${where}: a payload ran`);
    assert.equal(dialogs, 0, `${where}: a dialog opened`);
    const live = await page.evaluate(`(() => {
      const out = [];
      for (const el of document.querySelectorAll("*")) {
        for (const a of el.attributes) {
          if (/^on/i.test(a.name)) out.push(el.tagName + " " + a.name);
          if (/^(href|src|srcdoc)$/i.test(a.name) && /^\\s*javascript/i.test(a.value)) out.push(el.tagName + " " + a.name);
        }
      }
      for (const el of document.querySelectorAll("iframe, object, embed")) out.push(el.outerHTML.slice(0, 80));
      return out;
    })()`);
    assert.deepEqual(live, [], `${where}: live markup from a plugin`);
  }
});
