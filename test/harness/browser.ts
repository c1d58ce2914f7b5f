/**
 * Browser tests in Debian's Chromium (apt package `chromium`), driven by playwright-core. A page
 * opened here records every console error, uncaught page error and request that leaves
 * 127.0.0.1; `assertClean()` fails the test on any of them. Screenshots go to
 * test-artifacts/screenshots/.
 *
 * Chromium missing: the test fails, saying how to install it. On a developer machine without it,
 * SKIP_BROWSER_TESTS=1 skips these tests visibly; under CI=true that variable is ignored, so CI
 * can never pass without running them.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { ROOT } from "./binary.ts";

export const SCREENSHOTS = join(ROOT, "test-artifacts", "screenshots");

export function chromiumPath(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"];
  return candidates.find((p): p is string => !!p && existsSync(p));
}

/** Why browser tests are skipped, or undefined when they must run. */
export function browserSkipReason(): string | undefined {
  if (process.env.CI === "true" || !process.env.SKIP_BROWSER_TESTS) return undefined;
  return "SKIP_BROWSER_TESTS is set (never honoured under CI=true)";
}

export async function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) {
    throw new Error(
      "Chromium is not installed: browser tests need Debian's `chromium` package " +
        "(sudo apt-get install chromium; .ci/run installs it) or CHROMIUM_PATH. " +
        "To skip them on a development machine set SKIP_BROWSER_TESTS=1.",
    );
  }
  return await chromium.launch({
    executablePath,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-default-apps",
      "--disable-sync",
      "--no-first-run",
      "--no-default-browser-check",
      "--metrics-recording-only",
      "--disable-domain-reliability",
    ],
  });
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Console errors, page errors and off-host requests seen so far. */
  problems: string[];
  /** An HTTP error the test provokes on purpose (the console logs failed requests as errors). */
  expectHttpError(path: string, status: number): void;
  /** A full-page PNG named `name` in `dir` (default SCREENSHOTS); also records unnamed controls. */
  screenshot(name: string, dir?: string): Promise<string>;
  /** Throws when anything unexpected happened. */
  assertClean(): void;
}

/** A new browser context and page that records what a test must not see. */
export async function watchedPage(
  browser: Browser,
  baseUrl: string,
  /** ignoreHTTPSErrors: for a server with a self-signed test certificate. Default viewport 1280×860. */
  options: { ignoreHTTPSErrors?: boolean; viewport?: { width: number; height: number } } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: options.viewport ?? { width: 1280, height: 860 },
    ...(options.ignoreHTTPSErrors ? { ignoreHTTPSErrors: true } : {}),
  });
  const page = await context.newPage();
  const problems: string[] = [];
  const expected: { path: string; status: number }[] = [];
  let lastFailed: { path: string; status: number } | undefined;

  page.on("response", (res) => {
    if (res.status() >= 400) {
      const url = new URL(res.url());
      lastFailed = { path: url.pathname, status: res.status() };
    }
  });
  page.on("console", (msg) => {
    if (msg.type() !== "error") return;
    const text = msg.text();
    // Chromium logs "Failed to load resource: ... status of 400" for every HTTP error a fetch gets;
    // one the test provoked on purpose is not a problem.
    const loc = msg.location().url;
    if (/^Failed to load resource: the server responded with a status of (\d+)/.test(text)) {
      const status = Number(RegExp.$1);
      const path = loc ? new URL(loc).pathname : lastFailed?.path;
      const i = expected.findIndex((e) => e.status === status && e.path === path);
      if (i >= 0) {
        expected.splice(i, 1);
        return;
      }
    }
    problems.push(`console error: ${text}${loc ? ` (${loc})` : ""}`);
  });
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("request", (req) => {
    const url = new URL(req.url());
    if (url.protocol === "data:" || url.protocol === "blob:") return;
    if (url.hostname !== "127.0.0.1") problems.push(`request left 127.0.0.1: ${req.method()} ${req.url()}`);
  });
  mkdirSync(SCREENSHOTS, { recursive: true });

  return {
    page,
    context,
    problems,
    expectHttpError(path, status) {
      expected.push({ path, status });
    },
    async screenshot(name, dir = SCREENSHOTS) {
      mkdirSync(dir, { recursive: true });
      const path = join(dir, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      for (const control of await unnamedControls(page)) {
        problems.push(`${name}: control without a name: ${control}`);
      }
      return path;
    },
    assertClean() {
      if (problems.length) throw new Error(`the browser saw problems:\n  ${problems.join("\n  ")}`);
    },
  };
}

/**
 * Controls a screen reader could not name: form fields without a label, buttons and links without
 * text or aria-label. (A string, not a function: Playwright sends it over CDP, which the page's CSP
 * does not govern.)
 */
async function unnamedControls(page: Page): Promise<string[]> {
  return await page.evaluate(`(() => {
    const named = (el) => {
      if (el.getAttribute("aria-label") || el.getAttribute("aria-labelledby") || el.title) return true;
      if (el.id && document.querySelector('label[for="' + CSS.escape(el.id) + '"]')) return true;
      if (el.closest("label")) return true;
      if (["BUTTON", "A"].includes(el.tagName)) return el.textContent.trim() !== "";
      return false;
    };
    const controls = document.querySelectorAll(
      'input:not([type=hidden]), select, textarea, button, a[href], [role=button]',
    );
    return [...controls].filter((el) => !named(el)).map((el) => el.outerHTML.slice(0, 120));
  })()`) as string[];
}
