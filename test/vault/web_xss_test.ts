/**
 * Black-box: an XSS corpus against the vault web app in Chromium (`dist/vault`): payloads in note
 * bodies, note and folder names, tags, link and embed targets, search snippets and a user's name.
 * Every payload that could run calls window.alert or sets window.__xss; the test hooks both before
 * the app loads and fails if either fired, if any dialog opened, or if the page holds an event
 * handler attribute, a javascript: URL, or a script, iframe, object or embed element of its own.
 */
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import type { RunningBinary } from "../harness/binary.ts";
import { browserSkipReason, launchBrowser, type WatchedPage, watchedPage } from "../harness/browser.ts";
import { VaultClient } from "../harness/vault.ts";
import { type Account, shootAll, signInInPage, startVaultWeb } from "../harness/vault_web.ts";

const RUN = "window.__xss=1";
/** Note bodies: raw HTML, Markdown links and images, wiki-links and embeds, GFM, entities, front matter. */
export const BODY_PAYLOADS = [
  `<script>${RUN}</script>`,
  `<img src=x onerror="${RUN}">`,
  `<svg onload="${RUN}"></svg>`,
  `<svg><script>${RUN}</script></svg>`,
  `<iframe src="javascript:${RUN}"></iframe>`,
  `<iframe srcdoc="<script>parent.${RUN}</script>"></iframe>`,
  `<object data="javascript:${RUN}"></object>`,
  `<embed src="javascript:${RUN}">`,
  `<a href="javascript:${RUN}">click</a>`,
  `<details open ontoggle="${RUN}">x</details>`,
  `<body onload="${RUN}">`,
  `<style>@import "javascript:${RUN}";</style>`,
  `<math><mtext><table><mglyph><style><img src=x onerror="${RUN}">`,
  `<input autofocus onfocus="${RUN}">`,
  `<video><source onerror="${RUN}"></video>`,
  `<meta http-equiv="refresh" content="0;url=javascript:${RUN}">`,
  `<base href="javascript:${RUN}//">`,
  `<form action="javascript:${RUN}"><button>go</button></form>`,
  `[click](javascript:${RUN})`,
  `[click](JaVaScRiPt:${RUN})`,
  `[click](  javascript:${RUN})`,
  `[click](java\tscript:${RUN})`,
  `[click](&#106;avascript:${RUN})`,
  `[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)`,
  `[click](vbscript:msgbox(1))`,
  `![x](javascript:${RUN})`,
  `![x" onerror="${RUN}](x.png)`,
  `![x](https://evil.example/pixel.png)`,
  `[ref][r]\n\n[r]: javascript:${RUN}`,
  `<javascript:${RUN}>`,
  "```html\n<script>" + RUN + "</script>\n```",
  `| a |\n|---|\n| <img src=x onerror="${RUN}"> |`,
  `- [ ] <img src=x onerror="${RUN}">`,
  `[[javascript:${RUN}]]`,
  `[[x" onmouseover="${RUN}|label]]`,
  `[[x|<img src=x onerror="${RUN}">]]`,
  `![[x.png" onerror="${RUN}]]`,
  `![[x.png|" onerror="${RUN}]]`,
  `![[<img src=x onerror="${RUN}">]]`,
  `~~<img src=x onerror="${RUN}">~~ **<svg onload="${RUN}">**`,
  `&lt;script&gt;${RUN}&lt;/script&gt; &#60;img src=x onerror=${RUN}&#62;`,
  `---\ntitle: "<script>${RUN}</script>"\n---\n# title`,
];
/** Names the notes API accepts (no < > : " | ? *) that would break out of a careless attribute or template. */
export const NAME_PAYLOADS = [
  `x' onmouseover='${RUN}`,
  `javascript&colon;${RUN}`,
  "${alert(1)}",
  "{{constructor.constructor('alert(1)')()}}",
  `');${RUN};('`,
  "&#60;img src=x onerror=alert(1)&#62;",
];
/** Tags in front matter and inline. */
export const TAG_PAYLOADS = [
  `<img src=x onerror="${RUN}">`,
  `"><svg onload=${RUN}>`,
  `javascript:${RUN}`,
];

const EVIL: Account = {
  name: `<img src=x onerror="${RUN}">`,
  email: "evil@example.test",
  password: "evil-Pa55word-123",
};
const ADA: Account = {
  name: `Ada "><svg onload=${RUN}>`,
  email: "ada@example.test",
  password: "ada-Pa55word-123",
};

describe("vault web app: XSS corpus", { skip: browserSkipReason() }, () => {
  let server: RunningBinary;
  let url: string;
  let home: string;
  let browser: Browser;
  let w: WatchedPage;
  let api: VaultClient;
  let dialogs = 0;

  before(async () => {
    ({ server, url, home } = await startVaultWeb("vault-web-xss-"));
    api = new VaultClient(url);
    assert.equal((await api.post("/api/auth/sign-up/email", ADA)).status, 201);
    const invite = await api.write("POST", "/api/admin/invites", {});
    const evil = new VaultClient(url);
    assert.equal(
      (await evil.post("/api/auth/sign-up/email", { ...EVIL, inviteCode: invite.body.code })).status,
      201,
    );
    // The evil user shares a note whose name and owner name are payloads.
    assert.equal(
      (await evil.write("POST", "/api/notes", { path: `${NAME_PAYLOADS[0]}.md`, content: BODY_PAYLOADS[1] }))
        .status,
      201,
    );
    assert.equal(
      (await evil.write("POST", "/api/shares", {
        path: `${NAME_PAYLOADS[0]}.md`,
        email: ADA.email,
        permission: "read",
      }))
        .status,
      201,
    );
    for (const [i, body] of BODY_PAYLOADS.entries()) {
      const res = await api.write("POST", "/api/notes", {
        path: `xss/body-${i}.md`,
        content: `# Body ${i}\n\n${body}\n`,
      });
      assert.equal(res.status, 201, body);
    }
    for (const name of NAME_PAYLOADS) {
      const res = await api.write("POST", "/api/notes", {
        path: `names/${name}.md`,
        content: `[[${name}]] marker`,
      });
      assert.equal(res.status, 201, name);
      assert.equal((await api.write("POST", "/api/folders", { path: `folder ${name}` })).status, 201, name);
    }
    const tags = TAG_PAYLOADS.map((t) => JSON.stringify(t)).join(", ");
    assert.equal(
      (await api.write("POST", "/api/notes", {
        path: "tags.md",
        content:
          `---\ntags: [${tags}]\n---\n# Tags\n\n#x"onmouseover=${RUN} #<img/src=x/onerror=${RUN}> marker`,
      })).status,
      201,
    );
    browser = await launchBrowser();
    w = await watchedPage(browser, url);
    // Before any script of the page: a payload that runs flips the flag or calls a dialog.
    await w.context.addInitScript(`
      window.__xss = 0;
      for (const name of ["alert", "confirm", "prompt", "print"]) window[name] = () => { window.__xss = 2; };
    `);
    w.page.on("dialog", (d) => {
      dialogs++;
      void d.dismiss();
    });
  });

  after(async () => {
    await browser?.close();
    const code = await server?.stop();
    if (code !== 0 && code !== null) console.error(server.output());
    if (home) await rm(home, { recursive: true, force: true });
  });

  /** Nothing ran, no dialog, and the DOM holds nothing live that came from a payload. */
  async function assertInert(where: string) {
    const { page } = w;
    assert.equal(await page.evaluate("window.__xss"), 0, `${where}: a payload ran`);
    assert.equal(dialogs, 0, `${where}: a dialog opened`);
    const live = await page.evaluate(`(() => {
      const out = [];
      for (const el of document.querySelectorAll("*")) {
        for (const a of el.attributes) {
          if (/^on/i.test(a.name)) out.push(el.tagName + " " + a.name);
          if (/^(href|src|action|formaction|data|srcdoc)$/i.test(a.name) && /^\\s*(javascript|vbscript|data:text)/i.test(a.value)) {
            out.push(el.tagName + " " + a.name + "=" + a.value);
          }
        }
      }
      const scripts = [...document.scripts].filter((s) => !/\\/assets\\/vault\\.[0-9a-f]+\\.js$/.test(s.src));
      for (const s of scripts) out.push("script " + (s.src || s.textContent.slice(0, 40)));
      for (const el of document.querySelectorAll("iframe, object, embed, base, meta[http-equiv], form[action]")) out.push(el.outerHTML.slice(0, 80));
      return out;
    })()`);
    assert.deepEqual(live, [], `${where}: live markup from a payload`);
  }

  it(`${BODY_PAYLOADS.length + NAME_PAYLOADS.length * 2 + TAG_PAYLOADS.length + 4} payloads never run`, async () => {
    assert.ok(BODY_PAYLOADS.length + NAME_PAYLOADS.length * 2 + TAG_PAYLOADS.length + 4 >= 40);
    const { page } = w;
    await signInInPage(page, ADA);
    // The names in the tree, the shared section, the top bar.
    await page.locator(`[data-path="names/${NAME_PAYLOADS[0]}.md"]`).waitFor();
    await page.getByRole("region", { name: "Shared with me" }).getByText(EVIL.name, { exact: false })
      .waitFor();
    await assertInert("tree");
    for (const [i] of BODY_PAYLOADS.entries()) {
      await page.locator(`[data-path="xss/body-${i}.md"]`).click();
      const preview = page.locator("section.note:not([hidden]) .preview");
      await preview.getByRole("heading", { name: `Body ${i}` }).waitFor();
      // Hover and focus everything the payload produced, in case a handler slipped through.
      for (const el of await preview.locator("a, img, svg, span, input, details").all()) {
        await el.hover({ force: true, timeout: 1000 }).catch(() => {});
      }
      await assertInert(`body ${i}: ${BODY_PAYLOADS[i]}`);
    }
    // A wiki-link to a payload-named note opens it; the names render as text.
    for (const name of NAME_PAYLOADS) {
      await page.locator(`[data-path="names/${name}.md"]`).click();
      await page.locator("section.note:not([hidden]) .preview").getByText("marker").waitFor();
      await assertInert(`name ${name}`);
    }
    // The shared note with its payload name and body.
    await page.getByRole("region", { name: "Shared with me" }).getByRole("button").first().click();
    // A raw HTML block is shown as its text.
    await page.locator("section.note:not([hidden]) .preview").getByText("onerror", { exact: false })
      .waitFor();
    await assertInert("shared note");
    // Tags pane, search over the payloads (snippets come from the server as HTML).
    await page.locator('[data-path="tags.md"]').click();
    await page.getByRole("tab", { name: "Tags", exact: true }).click();
    await page.locator('[data-panel="tags"] .tag').first().waitFor();
    const tags = await page.locator('[data-panel="tags"] .tag').count();
    for (let i = 0; i < tags; i++) {
      // A tag shows the Search tab: back to Tags for the next one.
      await page.getByRole("tab", { name: "Tags", exact: true }).click();
      await page.locator('[data-panel="tags"] .tag').nth(i).click();
    }
    await page.getByLabel("Search notes").fill("onerror");
    await page.locator(".hits .hit").first().waitFor();
    await page.getByLabel("Search notes").fill("script");
    await page.locator(".hits .hit mark").first().waitFor();
    await assertInert("tags and search");
    // The admin page lists the evil user's name.
    await page.getByRole("link", { name: "Admin" }).click();
    await page.getByRole("cell", { name: EVIL.name, exact: true }).waitFor();
    await assertInert("admin");
    await shootAll(w, "xss");
    w.assertClean();
  });
});
