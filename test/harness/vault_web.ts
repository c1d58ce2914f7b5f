/**
 * Driving the vault web app (web/vault in dist/vault) in Chromium: a server on 127.0.0.1 with its
 * public URL set (the CSRF and cookie-origin checks compare with it), sign-up and sign-in through
 * the page, the editor's text, and screenshots of a page in light and dark, desktop and narrow.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { freePort } from "./ports.ts";
import { ROOT, type RunningBinary, startBinary } from "./binary.ts";
import type { WatchedPage } from "./browser.ts";
import { vaultEnv } from "./vault.ts";

export const WEB_ARTIFACTS = join(ROOT, "test-artifacts", "vault-web");

export async function startVaultWeb(
  prefix: string,
  extra: Record<string, string> = {},
): Promise<{ server: RunningBinary; url: string; home: string }> {
  const home = await mkdtemp(join(tmpdir(), prefix));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = await startBinary("vault", ["serve"], {
    cwd: home,
    env: vaultEnv(home, {
      extra: { VAULT_PORT: String(port), VAULT_BASE_URL: url, VAULT_COLLAB_WRITE_BACK_MS: "300", ...extra },
    }),
    timeoutMs: 60_000,
  });
  return { server, url, home };
}

export interface Account {
  name: string;
  email: string;
  password: string;
}

/** Fills the page's "Create account" form (with an invite code when given) and waits for the app. */
export async function signUpInPage(page: Page, who: Account, inviteCode?: string) {
  await page.goto("/");
  await page.getByRole("tab", { name: "Create account" }).click();
  await page.getByLabel("Name").fill(who.name);
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  if (inviteCode) await page.getByLabel("Invite code").fill(inviteCode);
  await page.getByRole("button", { name: "Create account", exact: true }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

export async function signInInPage(page: Page, who: Account) {
  await page.goto("/");
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

/** The session cookie of the page's context, for API calls made as the same user. */
export async function sessionCookie(page: Page): Promise<string> {
  const cookies = await page.context().cookies();
  return cookies.filter((c) => c.name.includes("session_token")).map((c) => `${c.name}=${c.value}`).join(
    "; ",
  );
}

/** The visible note's editor. */
export const editor = (page: Page) => page.locator("section.note:not([hidden]) .cm-content");
/**
 * The visible editor's text, without the widgets other people's cursors draw into it. (A string:
 * this module is type-checked without the DOM's types.)
 */
export const editorText = (page: Page): Promise<string> =>
  page.evaluate(`[...document.querySelectorAll("section.note:not([hidden]) .cm-content .cm-line")]
    .map((line) => {
      const copy = line.cloneNode(true);
      copy.querySelectorAll(".cm-ySelectionCaret, .cm-widgetBuffer").forEach((e) => e.remove());
      return copy.textContent;
    }).join("\\n")`);
export const saveState = (page: Page) => page.locator("section.note:not([hidden]) .save-state");

/** Four screenshots of what the page shows now: light and dark, desktop (1280) and narrow (390). */
export async function shootAll(w: WatchedPage, name: string) {
  const { page } = w;
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (
      const [size, viewport] of [["desktop", { width: 1280, height: 860 }], ["narrow", {
        width: 390,
        height: 844,
      }]] as const
    ) {
      await page.setViewportSize(viewport);
      await w.screenshot(`${name}-${scheme}-${size}`, WEB_ARTIFACTS);
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 860 });
}

/** Retries `check` until it passes or `timeoutMs` runs out (then its last error is thrown). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
