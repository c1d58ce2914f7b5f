/**
 * Black-box: two people edit one note at once in the vault web app (two Chromium contexts against
 * `dist/vault`, Yjs over /ws/yjs): each sees the other's text and named cursor, an AI agent's edit
 * through MCP (the SDK's client) shows as an agent pill, and the server writes the result back.
 * Editing together is the default; nothing typed while its socket is down is lost.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import type { Browser, WebSocketRoute } from "playwright-core";
import type { RunningBinary } from "../harness/binary.ts";
import { browserSkipReason, launchBrowser, type WatchedPage, watchedPage } from "../harness/browser.ts";
import { Client, StreamableHTTPClientTransport } from "../harness/mcp_client.ts";
import { VaultClient } from "../harness/vault.ts";
import {
  type Account,
  editor,
  editorText,
  eventually,
  shootAll,
  signInInPage,
  startVaultWeb,
} from "../harness/vault_web.ts";

const ADA: Account = { name: "Ada", email: "ada@example.test", password: "ada-Pa55word-123" };
const BEA: Account = { name: "Bea", email: "bea@example.test", password: "bea-Pa55word-123" };

describe("vault web app: editing together", { skip: browserSkipReason() }, () => {
  let server: RunningBinary;
  let url: string;
  let home: string;
  let browser: Browser;
  let ada: WatchedPage;
  let bea: WatchedPage;
  let adaApi: VaultClient;
  let mcp: Client | undefined;

  before(async () => {
    ({ server, url, home } = await startVaultWeb("vault-web-collab-"));
    adaApi = new VaultClient(url);
    const founded = await adaApi.post("/api/auth/sign-up/email", ADA);
    assert.equal(founded.status, 201);
    const invite = await adaApi.write("POST", "/api/admin/invites", {});
    assert.equal(
      (await new VaultClient(url).post("/api/auth/sign-up/email", { ...BEA, inviteCode: invite.body.code }))
        .status,
      201,
    );
    assert.equal(
      (await adaApi.write("POST", "/api/notes", { path: "Team/plan.md", content: "# Plan\n" })).status,
      201,
    );
    assert.equal(
      (await adaApi.write("POST", "/api/notes", { path: "Ideas.md", content: "# Ideas\n" })).status,
      201,
    );
    browser = await launchBrowser();
    ada = await watchedPage(browser, url);
    bea = await watchedPage(browser, url);
  });

  after(async () => {
    await mcp?.close();
    await browser?.close();
    const code = await server?.stop();
    if (code !== 0 && code !== null) console.error(server.output());
    if (home) await rm(home, { recursive: true, force: true });
  });

  it("sharing: a folder from the note's dialog; an access request approved from the inbox", async () => {
    await signInInPage(ada.page, ADA);
    await signInInPage(bea.page, BEA);
    await ada.page.goto("/?note=Team%2Fplan.md");
    await ada.page.getByRole("button", { name: "Share", exact: true }).click();
    const dialog = ada.page.getByRole("dialog", { name: "Share Team/plan.md" });
    await dialog.getByLabel("Person's email").fill(BEA.email);
    await dialog.getByLabel("Access").selectOption("read-write");
    await dialog.getByLabel("What").selectOption("folder");
    await dialog.getByRole("button", { name: "Share", exact: true }).click();
    await dialog.getByRole("status").filter({ hasText: `Shared Team/ with ${BEA.email}` }).waitFor();
    await dialog.getByRole("button", { name: "Stop sharing with Bea" }).waitFor();
    await shootAll(ada, "share-dialog");
    await dialog.getByRole("button", { name: "Close" }).click();

    await bea.page.getByRole("link", { name: "Settings" }).click();
    await bea.page.getByLabel("Owner's email").fill(ADA.email);
    await bea.page.getByLabel("Path").fill("Ideas.md");
    await bea.page.getByLabel("Message").fill("may I read your ideas?");
    await bea.page.getByRole("button", { name: "Send request" }).click();
    await bea.page.getByRole("status").filter({ hasText: "Request sent." }).waitFor();

    await ada.page.getByRole("link", { name: "Settings" }).click();
    const request = ada.page.locator("li.request", { hasText: "may I read your ideas?" });
    await request.waitFor();
    await shootAll(ada, "settings-sharing");
    await request.getByRole("button", { name: "Allow reading" }).click();
    await request.waitFor({ state: "detached" });
    await ada.page.getByRole("button", { name: "Stop sharing Ideas.md with Bea" }).waitFor();
    assert.equal((await adaApi.get("/api/shares")).body.given.length, 2);

    // Bea finds both under "Shared with me"; a read share opens read only.
    await bea.page.getByRole("link", { name: "Notes" }).click();
    const shared = bea.page.getByRole("region", { name: "Shared with me" });
    await shared.getByRole("button", { name: "Team/plan" }).waitFor();
    await shared.getByRole("button", { name: "Ideas" }).click();
    await bea.page.locator("section.note:not([hidden]) .note-path", { hasText: "(read only)" }).waitFor();
    ada.assertClean();
    bea.assertClean();
  });

  it("two people see each other's text and named cursors; an AI agent shows as a pill", async () => {
    for (const w of [ada, bea]) {
      await w.page.goto("/");
      assert.ok(await w.page.getByLabel("Edit together").isChecked(), "on by default");
    }
    await ada.page.goto("/?note=Team%2Fplan.md");
    // Bea finds the shared note in her tree, under "Shared with me".
    await bea.page.goto("/");
    await bea.page.getByRole("region", { name: "Shared with me" }).getByRole("button", { name: "Team/plan" })
      .click();
    for (const w of [ada, bea]) {
      await w.page.locator("section.note:not([hidden]) .live-dot.live").waitFor();
      await editor(w.page).waitFor();
    }

    await editor(ada.page).click();
    await ada.page.keyboard.press("Control+End");
    await ada.page.keyboard.type("Hello from Ada");
    await eventually(async () => assert.match(await editorText(bea.page), /Hello from Ada/));

    await editor(bea.page).click();
    await bea.page.keyboard.press("Control+End");
    await bea.page.keyboard.type("\nBea was here");
    await eventually(async () => assert.match(await editorText(ada.page), /Hello from Ada\nBea was here/));

    // Each sees the other as a presence pill and as a cursor labelled with the name.
    await ada.page.locator(".pill", { hasText: "Bea" }).waitFor();
    await bea.page.locator(".pill", { hasText: "Ada" }).waitFor();
    await eventually(async () =>
      assert.deepEqual(
        await ada.page.locator(".cm-ySelectionInfo").allInnerTexts().then((t) => t.map((s) => s.trim())),
        ["Bea"],
      )
    );
    await eventually(async () =>
      assert.deepEqual(
        await bea.page.locator(".cm-ySelectionInfo").allInnerTexts().then((t) => t.map((s) => s.trim())),
        ["Ada"],
      )
    );

    // The server writes the shared text back to the note.
    await eventually(async () => {
      const note = (await adaApi.get("/api/notes?path=Team%2Fplan.md")).body;
      assert.equal(note.content, "# Plan\nHello from Ada\nBea was here");
    });

    // An AI agent edits the note through MCP: both editors get the text, Ada sees the agent's pill.
    const key =
      (await adaApi.write("POST", "/api/api-keys", { name: "agent", scope: "read-write" })).body.key;
    mcp = new Client({ name: "Claude Code", version: "1.0.0" });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/api/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    const read = (await mcp.callTool({ name: "read_note", arguments: { path: "Team/plan.md" } }))
      .structuredContent as {
        content: string;
        version: string;
      };
    const wrote = await mcp.callTool({
      name: "update_note",
      arguments: { path: "Team/plan.md", content: `${read.content}\nAgent summary`, version: read.version },
    });
    assert.ok(!wrote.isError, JSON.stringify(wrote.content));
    await ada.page.locator(".pill.agent", { hasText: "Claude Code" }).waitFor({ timeout: 10_000 });
    for (const w of [ada, bea]) {
      await eventually(async () => assert.match(await editorText(w.page), /Bea was here\nAgent summary$/));
    }
    await shootAll(ada, "collab");
    ada.assertClean();
    bea.assertClean();
  });

  it("a person who leaves takes their cursor along at once", async () => {
    await bea.page.goto("/settings");
    await eventually(
      async () => assert.equal(await ada.page.locator(".cm-ySelectionInfo").count(), 0),
      5_000,
    );
    assert.equal(await ada.page.locator(".pill", { hasText: "Bea" }).count(), 0);
    ada.assertClean();
    bea.assertClean();
  });

  it("nothing typed while the socket is down is lost to a reload; an API change meanwhile meets the 409", async () => {
    const { page } = ada;
    let blocked = false;
    const sockets: WebSocketRoute[] = [];
    await page.routeWebSocket(/\/ws\/yjs/, (ws) => {
      if (blocked) return void ws.close();
      ws.connectToServer();
      sockets.push(ws);
    });
    await page.goto("/?note=Ideas.md");
    await page.locator("section.note:not([hidden]) .live-dot.live").waitFor();
    await editor(page).waitFor();
    // The socket drops and cannot come back; the HTTP API still answers.
    blocked = true;
    for (const ws of sockets) await ws.close();
    await page.locator("section.note:not([hidden]) .live-dot.offline").waitFor();
    await editor(page).click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("\ntyped offline");
    await page.reload();
    // No live sync: the note opens in the saving mode and offers back what was typed.
    await page.getByRole("alert").filter({ hasText: "Unsaved text from" }).waitFor({ timeout: 15_000 });
    await page.locator("section.note:not([hidden]) .note-bar", { hasText: "not live" }).waitFor();
    await page.getByRole("button", { name: "Restore it" }).click();
    assert.match(await editorText(page), /typed offline$/);
    await eventually(async () => {
      assert.match((await adaApi.get("/api/notes?path=Ideas.md")).body.content, /# Ideas\n+typed offline$/);
    });
    // Changed through the API while this editor cannot hear it: the next save conflicts, keeping the text.
    await page.locator("section.note:not([hidden]) .save-state", { hasText: "Saved" }).waitFor();
    await editor(page).click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type(" and more");
    const current = (await adaApi.get("/api/notes?path=Ideas.md")).body;
    assert.equal(
      (await adaApi.write("PUT", "/api/notes", {
        path: "Ideas.md",
        content: "# Ideas\nfrom the API\n",
        ifVersion: current.version,
      })).status,
      200,
    );
    ada.expectHttpError("/api/notes", 409);
    await page.getByRole("alert").filter({ hasText: "Someone else saved this note" }).waitFor();
    assert.match(await editorText(page), /typed offline and more$/);
    await page.getByRole("button", { name: "Save mine over theirs" }).click();
    await eventually(async () =>
      assert.match((await adaApi.get("/api/notes?path=Ideas.md")).body.content, /typed offline and more$/)
    );
    // The socket is back: a reopened note is live again, with the text.
    blocked = false;
    await page.reload();
    await page.locator("section.note:not([hidden]) .live-dot.live").waitFor();
    assert.match(await editorText(page), /typed offline and more$/);
    await page.unrouteAll();
    ada.assertClean();
  });

  it("split panes while editing together: typing in the second pane's view reaches the other person", async () => {
    await ada.page.goto("/?note=Team%2Fplan.md");
    await bea.page.goto("/");
    await bea.page.getByRole("region", { name: "Shared with me" }).getByRole("button", { name: "Team/plan" })
      .click();
    for (const w of [ada, bea]) await w.page.locator("section.note:not([hidden]) .live-dot.live").waitFor();
    await ada.page.getByRole("button", { name: "Split", exact: true }).click();
    const right = ada.page.getByRole("group", { name: "Pane 2" });
    const left = ada.page.getByRole("group", { name: "Pane 1" });
    const rightText = right.locator("section.note:not([hidden]) .cm-content");
    await rightText.waitFor();
    await rightText.click();
    await ada.page.keyboard.press("Control+End");
    await ada.page.keyboard.type("\nfrom the right pane");
    await eventually(async () => assert.match(await editorText(bea.page), /from the right pane$/));
    await eventually(async () =>
      assert.match(
        await left.locator("section.note:not([hidden]) .cm-content").innerText(),
        /from the right pane$/,
      )
    );
    // And back: Bea's edit shows in both of Ada's panes.
    await editor(bea.page).click();
    await bea.page.keyboard.press("Control+End");
    await bea.page.keyboard.type(" (seen)");
    await eventually(async () => assert.match(await rightText.innerText(), /from the right pane \(seen\)$/));
    await eventually(async () => {
      const note = (await adaApi.get("/api/notes?path=Team%2Fplan.md")).body;
      assert.match(note.content, /from the right pane \(seen\)$/);
    });
    await shootAll(ada, "split-panes-live");
    await ada.page.getByRole("button", { name: "Close pane" }).click();
    ada.assertClean();
    bea.assertClean();
  });
});
