/**
 * Black-box: the /admin dashboard of dist/memsvc in Debian's Chromium (issue 8). Walks what a
 * person does: sign in as the bootstrap admin, create a user, sign in as that user, create and
 * share a project, add, browse, edit and forget entries, open the graph, mint and revoke a token,
 * then watch the admin metrics change. Every page is screenshotted into test-artifacts/screenshots/;
 * any console error, page error or request leaving 127.0.0.1 fails the test.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { type RunningBinary, startBinary } from "../harness/binary.ts";
import { browserSkipReason, launchBrowser, type WatchedPage, watchedPage } from "../harness/browser.ts";
import { memsvcEnv } from "../harness/memsvc.ts";
import { checkScreens } from "../harness/screens.ts";
import { skipBecause } from "../harness/skip.ts";

const ADMIN = { email: "root@example.test", password: "bootstrap-Pa55word!" };
const USER = { email: "ada@example.test", password: "ada-Pa55word-123", name: "Ada" };
const TEMP = { email: "temp@example.test", password: "temp-Pa55word-123" };
const skip = skipBecause(browserSkipReason());

async function signIn(page: Page, who: { email: string; password: string }) {
  await page.getByLabel("Email", { exact: true }).fill(who.email);
  await page.getByLabel("Password", { exact: true }).fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByTestId("who").filter({ hasText: who.email }).waitFor();
}

async function signOut(page: Page) {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("heading", { name: "Sign in to memsvc" }).waitFor();
}

async function openPage(page: Page, name: string) {
  await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name, exact: true }).click();
  await page.getByRole("heading", { level: 1, name }).waitFor();
}

/** The number a metrics counter shows, e.g. "Writes". */
async function counter(page: Page, id: string): Promise<number> {
  const text = await page.getByTestId(`counter-${id}`).textContent();
  return Number((text ?? "").replace(/[^\d.]/g, ""));
}

describe("memsvc dashboard in Chromium", { skip }, () => {
  let home: string;
  let server: RunningBinary;
  let browser: Browser;
  let w: WatchedPage;

  before(async () => {
    home = await mkdtemp(join(tmpdir(), "memsvc-dashboard-"));
    server = await startBinary("memsvc", ["serve"], {
      cwd: home,
      env: memsvcEnv(home, { admin: ADMIN }),
    });
    browser = await launchBrowser();
    w = await watchedPage(browser, server.url);
    await w.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
  });

  after(async () => {
    await browser?.close();
    const code = await server?.stop();
    if (code !== 0 && server) console.error(server.output());
    await rm(home, { recursive: true, force: true });
  });

  it("serves the page and its assets under a strict Content-Security-Policy", async () => {
    const res = await fetch(`${server.url}/admin/`);
    assert.equal(res.status, 200);
    const csp = res.headers.get("content-security-policy") ?? "";
    for (
      const rule of ["script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]
    ) {
      assert.ok(csp.includes(rule), `${rule} in ${csp}`);
    }
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
    assert.equal(res.headers.get("cache-control"), "no-cache");
    const html = await res.text();
    assert.doesNotMatch(
      html,
      /<script>|<style>|style=|(src|href)="(https?:)?\/\//,
      "no inline code, nothing from elsewhere",
    );
    const js = html.match(/src="(\/admin\/assets\/admin\.[0-9a-f]{12}\.js)"/)?.[1];
    assert.ok(js, html);
    const asset = await fetch(`${server.url}${js}`);
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get("cache-control") ?? "", /immutable/);
    await asset.body?.cancel();
    const missing = await fetch(`${server.url}/admin/assets/admin.000000000000.js`);
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
    // Client-side routes get the same page.
    const deep = await fetch(`${server.url}/admin/projects`);
    assert.equal(deep.status, 200);
    await deep.body?.cancel();
  });

  it("walks the admin and user flows", async () => {
    try {
      await walk();
    } catch (err) {
      await w.screenshot("zz-failure").catch(() => {});
      if (w.problems.length) console.error(w.problems.join("\n"));
      throw err;
    }
  });

  async function walk() {
    const { page } = w;
    // --- Admin: sign in, users, last-admin refusal, health, metrics ---
    await page.goto("/admin/");
    await page.getByRole("heading", { name: "Sign in to memsvc" }).waitFor();
    await w.screenshot("01-sign-in");

    w.expectHttpError("/api/auth/sign-in/email", 401);
    await page.getByLabel("Email", { exact: true }).fill(ADMIN.email);
    await page.getByLabel("Password", { exact: true }).fill("not-the-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "don't match an account" }).waitFor();
    await w.screenshot("02-sign-in-error");

    await signIn(page, ADMIN);
    // Keyboard: on a freshly loaded page the first Tab reaches the skip link; after moving to
    // another page, focus is on that page's heading.
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Browse" }).waitFor();
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate("document.activeElement?.textContent"), "Skip to content");
    await openPage(page, "Users");
    await page.locator("h1#page-title:focus").waitFor();
    await page.getByRole("row").filter({ hasText: ADMIN.email }).waitFor();
    await page.getByRole("button", { name: "New user" }).click();
    const dialog = page.getByRole("dialog", { name: "New user" });
    await dialog.getByLabel("Email", { exact: true }).fill(USER.email);
    await dialog.getByLabel("Name", { exact: true }).fill(USER.name);
    await dialog.getByLabel("Password", { exact: true }).fill(USER.password);
    await dialog.getByRole("button", { name: "Create user" }).click();
    await page.getByText(`Created ${USER.email}.`).waitFor();
    await page.getByRole("row").filter({ hasText: USER.email }).waitFor();

    // The only admin demoting themself is refused, in words.
    w.expectHttpError("/api/auth/admin/set-role", 400);
    await page.getByLabel(`Role of ${ADMIN.email}`, { exact: true }).selectOption("user");
    await page.getByRole("alert").filter({ hasText: "You can't remove, demote or ban the last admin" })
      .waitFor();
    assert.equal(await page.getByLabel(`Role of ${ADMIN.email}`, { exact: true }).inputValue(), "admin");
    await w.screenshot("03-users");

    // A second account through its whole life: new password, ban, unban, remove (confirmed).
    await page.getByRole("button", { name: "New user" }).click();
    await dialog.getByLabel("Email", { exact: true }).fill(TEMP.email);
    await dialog.getByLabel("Password", { exact: true }).fill(TEMP.password);
    await dialog.getByLabel("Role", { exact: true }).selectOption("admin");
    await dialog.getByRole("button", { name: "Create user" }).click();
    const temp = page.getByRole("row").filter({ hasText: TEMP.email });
    await temp.waitFor();
    assert.equal(await page.getByLabel(`Role of ${TEMP.email}`, { exact: true }).inputValue(), "admin");
    await page.getByLabel(`Role of ${TEMP.email}`, { exact: true }).selectOption("user");
    await page.getByText(`${TEMP.email} is now a user.`).waitFor();
    await temp.getByRole("button", { name: "Set password" }).click();
    const pw = page.getByRole("dialog", { name: `Set password for ${TEMP.email}` });
    await pw.getByLabel("New password", { exact: true }).fill("another-Pa55word-1");
    await pw.getByRole("button", { name: "Set password" }).click();
    await page.getByText(`New password set for ${TEMP.email}.`).waitFor();
    await temp.getByRole("button", { name: "Ban" }).click();
    await temp.getByText("banned").waitFor();
    await temp.getByRole("button", { name: "Unban" }).click();
    await temp.getByText("active").waitFor();
    await temp.getByRole("button", { name: "Remove" }).click();
    const confirmRemove = page.getByRole("dialog", { name: "Remove user?" });
    await confirmRemove.getByRole("button", { name: "Cancel" }).click();
    await temp.waitFor();
    await temp.getByRole("button", { name: "Remove" }).click();
    // Escape closes a dialog without doing anything.
    await confirmRemove.waitFor();
    await page.keyboard.press("Escape");
    await confirmRemove.waitFor({ state: "hidden" });
    await temp.getByRole("button", { name: "Remove" }).click();
    await confirmRemove.getByRole("button", { name: "Remove user" }).click();
    await page.getByText(`Removed ${TEMP.email}.`).waitFor();
    await temp.waitFor({ state: "detached" });

    await openPage(page, "Health");
    await page.getByText("All systems are working.").waitFor();
    await w.screenshot("04-health");

    await openPage(page, "Metrics");
    await page.getByTestId("counter-remembers").waitFor();
    const writesBefore = await counter(page, "remembers");
    await w.screenshot("05-metrics-before");
    await signOut(page);

    // --- The new user ---
    await signIn(page, USER);
    const nav = page.getByRole("navigation", { name: "Pages" });
    assert.equal(await nav.getByRole("link", { name: "Users" }).count(), 0, "no admin pages for a user");

    await openPage(page, "Projects");
    await page.getByText("No projects yet").waitFor();
    await page.getByLabel("New project name", { exact: true }).fill("Research notes");
    await page.getByRole("button", { name: "Create project" }).click();
    const project = page.locator('[data-project="Research notes"]');
    await project.waitFor();
    await project.getByRole("button", { name: "Set active" }).click();
    await project.getByText("active", { exact: true }).waitFor();
    await project.getByRole("button", { name: "Members" }).click();
    await project.getByLabel("Share with (exact email)", { exact: true }).fill(ADMIN.email);
    await project.getByRole("button", { name: "Share", exact: true }).click();
    await project.getByRole("listitem").filter({ hasText: ADMIN.email }).waitFor();
    await w.screenshot("06-projects");
    await project.getByRole("button", { name: `Remove ${ADMIN.email}` }).click();
    await project.getByRole("listitem").filter({ hasText: ADMIN.email }).waitFor({ state: "detached" });

    await openPage(page, "Browse");
    await page.getByText("No entries here yet").waitFor();
    const facts = [
      "The staging database runs PostgreSQL 15 on port 5433.",
      "Backups of the staging database run nightly at 02:00 UTC.",
      "The staging database password rotates every 90 days.",
      "Ada prefers concise code reviews with concrete suggestions.",
    ];
    for (const content of facts) {
      await page.getByRole("button", { name: "Add entry" }).click();
      const add = page.getByRole("dialog", { name: "Add entry" });
      await add.getByLabel("Content", { exact: true }).fill(content);
      await add.getByRole("button", { name: "Remember" }).click();
      await add.waitFor({ state: "hidden" });
      await page.getByRole("link", { name: content }).waitFor();
    }
    // The gate's refusal is shown plainly.
    await page.getByRole("button", { name: "Add entry" }).click();
    const add = page.getByRole("dialog", { name: "Add entry" });
    await add.getByLabel("Content", { exact: true }).fill("ok");
    await add.getByRole("button", { name: "Remember" }).click();
    await add.getByRole("alert").filter({ hasText: "Not saved" }).waitFor();
    await add.getByRole("button", { name: "Cancel" }).click();
    await w.screenshot("07-browse");

    await page.getByLabel("Search", { exact: true }).fill("staging backups");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByText("Showing the best").waitFor();
    await page.getByRole("link", { name: facts[1]! }).waitFor();
    await w.screenshot("08-browse-search");
    await page.getByRole("link", { name: "Clear" }).click();

    // View, edit, forget.
    await page.getByRole("link", { name: facts[3]! }).click();
    const entry = page.getByRole("dialog", { name: "Entry" });
    await entry.getByText("Source type").waitFor();
    await w.screenshot("09-entry");
    await entry.getByRole("button", { name: "Edit" }).click();
    const edit = page.getByRole("dialog", { name: "Edit entry" });
    await edit.getByLabel("Source type", { exact: true }).fill("code-review");
    await edit.getByRole("button", { name: "Save" }).click();
    await page.getByRole("dialog", { name: "Entry" }).getByText("code-review").waitFor();
    await page.getByRole("dialog", { name: "Entry" }).getByRole("button", { name: "Forget" }).click();
    await page.getByRole("dialog", { name: "Forget this entry?" }).getByRole("button", { name: "Forget" })
      .click();
    await page.getByText("Forgotten.").waitFor();
    await page.getByRole("link", { name: facts[3]! }).waitFor({ state: "detached" });

    // Graph of the first fact: its neighbours are the other staging facts.
    await page.getByRole("listitem").filter({ hasText: facts[0]! }).getByRole("link", { name: "Graph" })
      .click();
    await page.getByRole("heading", { level: 1, name: "Graph" }).waitFor();
    const nodes = page.locator("svg g.node");
    await nodes.first().waitFor();
    assert.ok((await nodes.count()) >= 2, "the root and at least one neighbour");
    await page.getByRole("combobox", { name: "Depth" }).selectOption("2");
    await page.locator("svg g.node.root").waitFor();
    // Keyboard: Tab focus on a neighbour, Enter selects it and the side panel shows it.
    await page.locator("svg g.node:not(.root)").first().focus();
    await page.keyboard.press("Enter");
    await page.getByRole("complementary", { name: "Selected entry" }).getByRole("heading", {
      name: /^Depth [123]$/,
    })
      .waitFor();
    await w.screenshot("10-graph");

    await openPage(page, "Today");
    await page.getByRole("list", { name: "Activity" }).getByText("Remembered").first().waitFor();
    await w.screenshot("11-today");

    // Tokens: mint (shown once, copied), use, revoke.
    await openPage(page, "API Tokens");
    await page.getByText("No tokens yet").waitFor();
    await page.getByLabel("Label", { exact: true }).fill("laptop agent");
    await page.getByRole("button", { name: "Create token" }).click();
    const plaintext = await page.getByLabel("New token", { exact: true }).inputValue();
    assert.match(plaintext, /^nm_[A-Za-z0-9_-]{43,}$/);
    await page.getByRole("button", { name: "Copy" }).click();
    await page.getByText("Copied to the clipboard.").waitFor();
    assert.equal(await page.evaluate("navigator.clipboard.readText()"), plaintext);
    await w.screenshot("12-tokens-minted");
    const viaToken = (body: unknown) =>
      fetch(`${server.url}/v1/remember`, {
        method: "POST",
        headers: { authorization: `Bearer ${plaintext}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const used = await viaToken({ content: "The token works for agents on the laptop." });
    assert.equal(used.status, 201, await used.text());
    await page.getByRole("button", { name: "I have copied it" }).click();
    assert.equal(
      await page.getByLabel("New token", { exact: true }).count(),
      0,
      "the plaintext is gone once dismissed",
    );
    await page.getByRole("row").filter({ hasText: "laptop agent" }).getByRole("button", { name: "Revoke" })
      .click();
    await page.getByRole("dialog", { name: "Revoke token?" }).getByRole("button", { name: "Revoke token" })
      .click();
    await page.getByText("No tokens yet").waitFor();
    await w.screenshot("13-tokens-revoked");

    // Paging: 25 more entries (through the API, as the session) make two pages; filter by source type.
    for (let i = 1; i <= 25; i++) {
      const res = await w.context.request.post(`${server.url}/v1/remember`, {
        headers: { origin: server.url },
        data: { content: `Meeting note number ${i} about the quarterly roadmap.`, source_type: "chat" },
      });
      assert.equal(res.status(), 201, await res.text());
    }
    await openPage(page, "Browse");
    await page.getByRole("link", { name: "Meeting note number 25 about the quarterly roadmap." }).waitFor();
    assert.equal(await page.getByRole("list", { name: "Entries" }).getByRole("listitem").count(), 20);
    await page.getByRole("button", { name: "Older" }).click();
    await page.getByText("Page 2").waitFor();
    await page.getByRole("link", { name: facts[0]! }).waitFor();
    await page.getByRole("button", { name: "Newer" }).click();
    await page.getByText("Page 2").waitFor({ state: "detached" });
    await page.getByLabel("Source type", { exact: true }).fill("manual");
    await page.getByRole("button", { name: "Apply" }).click();
    await page.getByRole("link", { name: "Meeting note number 25 about the quarterly roadmap." })
      .waitFor({ state: "detached" });
    await page.getByRole("link", { name: facts[0]! }).waitFor();
    await page.getByRole("link", { name: "Clear" }).click();

    // Delete a project, confirmed.
    await openPage(page, "Projects");
    await page.getByLabel("New project name", { exact: true }).fill("Scratch");
    await page.getByRole("button", { name: "Create project" }).click();
    const scratch = page.locator('[data-project="Scratch"]');
    await scratch.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("dialog", { name: "Delete “Scratch”?" }).getByRole("button", {
      name: "Delete project",
    })
      .click();
    await page.getByText("Deleted “Scratch” and its memory.").waitFor();
    await scratch.waitFor({ state: "detached" });
    const revoked = await viaToken({ content: "This must not be stored after revocation." });
    assert.equal(revoked.status, 401);
    await revoked.body?.cancel();

    // A narrow screen gets the menu button instead of the sidebar.
    await page.setViewportSize({ width: 390, height: 800 });
    await page.getByRole("button", { name: "Menu" }).click();
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "Browse", exact: true })
      .click();
    await page.getByRole("heading", { level: 1, name: "Browse" }).waitFor();
    await page.getByRole("link", { name: "Meeting note number 25 about the quarterly roadmap." }).waitFor();
    await w.screenshot("14-browse-mobile");
    await page.setViewportSize({ width: 1280, height: 860 });
    await signOut(page);

    // A session that ends under the page (cookie gone) leads back to sign-in, not to a broken page.
    await signIn(page, USER);
    // The landing page's own reads first: one still in flight when the cookie goes meets the 401
    // itself and leads to sign-in before the link is clicked (CI, under load).
    await page.waitForLoadState("networkidle");
    await w.context.clearCookies();
    w.expectHttpError("/v1/me/tokens", 401);
    await page.getByRole("navigation", { name: "Pages" }).getByRole("link", { name: "API Tokens" }).click();
    await page.getByRole("heading", { name: "Sign in to memsvc" }).waitFor();

    // --- Admin again: the metrics moved, and keep moving while watched ---
    await signIn(page, ADMIN);
    await openPage(page, "Metrics");
    await page.getByTestId("counter-remembers").waitFor();
    const writesAfter = await counter(page, "remembers");
    assert.ok(writesAfter >= writesBefore + facts.length + 25, `writes ${writesBefore} -> ${writesAfter}`);
    // A write through the API shows up on the open page without a reload (it polls).
    const session = await w.context.request.post(`${server.url}/v1/remember`, {
      headers: { origin: server.url },
      data: { content: "The metrics page updates itself every few seconds." },
    });
    assert.equal(session.status(), 201, await session.text());
    // (A CSP without unsafe-eval also keeps Playwright's string predicates out: match the text.)
    await page.getByTestId("counter-remembers").filter({ hasText: new RegExp(`^${writesAfter + 1}$`) })
      .waitFor({ timeout: 20_000 });
    await page.locator("figure.chart polyline").first().waitFor();
    // The charts read out every series at the moment under the pointer.
    const chart = page.locator('figure[data-chart="Writes and searches per minute"]');
    await chart.locator("svg").hover({ position: { x: 300, y: 60 } });
    await chart.locator("[data-crosshair]").waitFor();
    assert.match(await chart.locator(".chart-readout").innerText(), /^At /);
    assert.match(await chart.locator(".legend").innerText(), /Writes \d+[\s\S]*Searches \d+/);
    await w.screenshot("15-metrics-after");
    await page.emulateMedia({ colorScheme: "dark" });
    await w.screenshot("15-metrics-dark");
    await page.emulateMedia({ colorScheme: "light" });

    // Interactive API docs, when this build has them.
    const docs = await fetch(`${server.url}/api-docs`);
    await docs.body?.cancel();
    if (docs.status === 200) {
      await page.goto("/api-docs");
      await page.waitForLoadState("networkidle");
      await w.screenshot("16-api-docs");
    }
    w.assertClean();
  }

  it("the graph draws every node the API returned, after a depth change and after centring on another entry", async () => {
    const w = await watchedPage(browser, server.url);
    const { page } = w;
    await page.goto("/admin/");
    await signIn(page, ADMIN);
    // Topics that link up among themselves and, through a few bridges, to each other.
    const topics = ["database backups", "deploy pipeline", "code review", "on-call rota"];
    for (let i = 0; i < 16; i++) {
      const topic = topics[i % topics.length]!;
      const bridge = topics[(i + 1) % topics.length]!;
      const content = i % 5 === 0
        ? `Note ${i} links the ${topic} to the ${bridge} for the platform team.`
        : `Note ${i} about the ${topic}: detail number ${i} for the platform team.`;
      const res = await w.context.request.post(`${server.url}/v1/remember`, {
        headers: { origin: server.url },
        data: { content, source_type: "graph-test" },
      });
      assert.equal(res.status(), 201, await res.text());
    }
    const graph = async (id: string, depth: number) => {
      const res = await w.context.request.get(`${server.url}/v1/memories/${id}/neighbors?depth=${depth}`);
      return (await res.json()) as { nodes: { id: string; depth: number; content: string }[] };
    };
    // A root whose graph grows from depth 1 to 2, and a neighbour whose depth-2 graph has another size:
    // drawing the previous graph's layout would show the wrong number of nodes.
    let pick:
      | { root: string; d1: number; d2: number; next: string; nextContent: string; nextD2: number }
      | undefined;
    for (const root of await recentIds(40)) {
      const one = await graph(root, 1);
      const two = await graph(root, 2);
      if (one.nodes.length === two.nodes.length) continue;
      for (const n of one.nodes.filter((n) => n.depth === 1)) {
        const nextD2 = (await graph(n.id, 2)).nodes.length;
        if (nextD2 !== two.nodes.length) {
          pick = {
            root,
            d1: one.nodes.length,
            d2: two.nodes.length,
            next: n.id,
            nextContent: n.content,
            nextD2,
          };
          break;
        }
      }
      if (pick) break;
    }
    assert.ok(pick, "the seeded entries give a graph whose size changes with depth and centre");
    const drawn = page.locator("svg g.node");
    const hasCount = (n: number) =>
      page.locator(`svg[aria-label^="Graph of ${n} entries"]`).waitFor({ timeout: 15_000 });

    await page.goto(`/admin/graph?id=${pick.root}&depth=1`);
    await hasCount(pick.d1);
    assert.equal(await drawn.count(), pick.d1);

    await page.getByRole("combobox", { name: "Depth" }).selectOption("2");
    await page.waitForURL(/depth=2/);
    await hasCount(pick.d2);
    assert.equal(await drawn.count(), pick.d2, "after a depth change, every node of the new graph is drawn");

    // Double-click the neighbour to centre the graph on it.
    const shown = pick.nextContent.length > 28 ? `${pick.nextContent.slice(0, 27)}…` : pick.nextContent;
    await page.getByRole("button", { name: `${shown} (depth 1)`, exact: true }).dblclick();
    await page.waitForURL(new RegExp(`id=${pick.next}`));
    await hasCount(pick.nextD2);
    assert.equal(await drawn.count(), pick.nextD2, "after centring, every node of the new graph is drawn");
    await w.screenshot("10-graph-recentred");
    w.assertClean();
    await w.context.close();
  });

  it("every screen at 1280 and 390 px: no sideways scroll, no console error, no serious axe violation", async () => {
    const page = (path: string, heading: string) => async (p: Page) => {
      await p.goto(`/admin/${path}`);
      await p.getByRole("heading", { level: 1, name: heading }).waitFor();
      await p.locator(".loading").waitFor({ state: "detached" });
    };
    const id = (await recentIds(1))[0]!;
    await checkScreens(browser, server.url, "memsvc", [
      {
        name: "sign-in",
        open: async (p) => {
          await p.goto("/admin/");
          await p.getByRole("heading", { name: "Sign in to memsvc" }).waitFor();
        },
      },
      {
        name: "browse",
        open: async (p) => {
          await p.getByLabel("Email", { exact: true }).fill(ADMIN.email);
          await p.getByLabel("Password", { exact: true }).fill(ADMIN.password);
          await p.getByRole("button", { name: "Sign in" }).click();
          await p.getByRole("heading", { level: 1, name: "Browse" }).waitFor();
          await p.locator(".loading").waitFor({ state: "detached" });
        },
      },
      {
        name: "entry",
        open: async (p) => {
          await p.goto(`/admin/browse?id=${id}`);
          await p.getByRole("dialog", { name: "Entry" }).getByText("Source type").waitFor();
        },
      },
      {
        name: "graph",
        open: async (p) => {
          await page(`graph?id=${id}&depth=2`, "Graph")(p);
          await p.locator("svg g.node.root").waitFor();
        },
      },
      { name: "today", open: page("today", "Today") },
      { name: "projects", open: page("projects", "Projects") },
      { name: "tokens", open: page("tokens", "API Tokens") },
      { name: "users", open: page("users", "Users") },
      { name: "health", open: page("health", "Health") },
      {
        name: "metrics",
        open: async (p) => {
          await page("metrics", "Metrics")(p);
          await p.locator("figure.chart polyline").first().waitFor();
        },
      },
    ]);
  });

  /** The ids of the admin's newest entries (as the admin, through the API). */
  async function recentIds(limit: number): Promise<string[]> {
    const sign = await fetch(`${server.url}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: server.url },
      body: JSON.stringify(ADMIN),
    });
    const cookie = sign.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    await sign.body?.cancel();
    const res = await fetch(`${server.url}/v1/recent?limit=${limit}`, { headers: { cookie } });
    const body = (await res.json()) as { entries: { id: string }[] };
    return body.entries.map((e) => e.id);
  }
});

describe("memsvc dashboard without authentication (MEMSVC_AUTH_MODE=none)", { skip }, () => {
  it("says plainly that nobody signs in, and works", async () => {
    const home = await mkdtemp(join(tmpdir(), "memsvc-dashboard-none-"));
    const server = await startBinary("memsvc", ["serve"], {
      cwd: home,
      env: { HOME: home, MEMSVC_PORT: "0", MEMSVC_LOG_FORMAT: "json", MEMSVC_AUTH_MODE: "none" },
    });
    const browser = await launchBrowser();
    try {
      const w = await watchedPage(browser, server.url);
      await w.page.goto("/admin/");
      await w.page.getByText("Authentication is off").waitFor();
      await w.page.getByText("No sign-in (development mode)").waitFor();
      assert.equal(await w.page.getByRole("button", { name: "Sign out" }).count(), 0);
      await openPage(w.page, "API Tokens");
      await w.page.getByText("No personal tokens in this mode").waitFor();
      await openPage(w.page, "Users");
      await w.page.getByText("This server has no user accounts").waitFor();
      await openPage(w.page, "Health");
      await w.page.getByText("All systems are working.").waitFor();
      await w.screenshot("17-mode-none");
      w.assertClean();
    } finally {
      await browser.close();
      await server.stop();
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe("memsvc dashboard with one shared token (MEMSVC_AUTH_MODE=bearer)", { skip }, () => {
  it("signs in with the token, refuses a wrong one, and forgets it on sign-out", async () => {
    const home = await mkdtemp(join(tmpdir(), "memsvc-dashboard-bearer-"));
    const token = "dashboard-test-shared-bearer-0123456789abcdef";
    const server = await startBinary("memsvc", ["serve"], {
      cwd: home,
      env: memsvcEnv(home, { extra: { MEMSVC_AUTH_MODE: "bearer", MEMSVC_AUTH_TOKEN: token } }),
    });
    const browser = await launchBrowser();
    try {
      const w = await watchedPage(browser, server.url);
      await w.page.goto("/admin/");
      w.expectHttpError("/v1/me/active-project", 401);
      await w.page.getByLabel("Token", { exact: true }).fill("not-the-token");
      await w.page.getByRole("button", { name: "Sign in" }).click();
      await w.page.getByRole("alert").filter({ hasText: "not this server's MEMSVC_AUTH_TOKEN" }).waitFor();
      await w.page.getByLabel("Token", { exact: true }).fill(token);
      await w.page.getByRole("button", { name: "Sign in" }).click();
      await w.page.getByRole("heading", { level: 1, name: "Browse" }).waitFor();
      await openPage(w.page, "Projects");
      await w.page.getByLabel("New project name", { exact: true }).fill("Operator notes");
      await w.page.getByRole("button", { name: "Create project" }).click();
      await w.page.locator('[data-project="Operator notes"]').waitFor();
      await w.screenshot("18-mode-bearer");
      await signOut(w.page);
      await w.page.reload();
      await w.page.getByLabel("Token", { exact: true }).waitFor();
      w.assertClean();
    } finally {
      await browser.close();
      await server.stop();
      await rm(home, { recursive: true, force: true });
    }
  });
});
