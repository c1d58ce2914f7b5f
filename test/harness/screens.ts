/**
 * Every screen of a web app, at a desktop and a phone size, checked the same way (issue 43):
 *   - no horizontal overflow (the page is never wider than the window),
 *   - no console error, page error or request leaving 127.0.0.1 (browser.ts watchedPage),
 *   - axe-core (npm `axe-core`) finds no serious or critical accessibility violation.
 * Each screen is photographed into test-artifacts/screens/ (or $WEB_SHOTS_DIR): <app>-<screen>-<width>.png.
 * One browser and one server per app are shared by all its screens; a failure names every screen and
 * rule that failed, not only the first.
 *
 * axe-core's source is evaluated over CDP, which the apps' CSP (script-src 'self') does not govern;
 * nothing is added to the page's own scripts.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { ROOT } from "./binary.ts";
import { type WatchedPage, watchedPage } from "./browser.ts";

export const VIEWPORTS = [
  { name: "desktop", width: 1280, height: 800 },
  { name: "phone", width: 390, height: 844 },
] as const;

export const SCREENS_DIR = process.env.WEB_SHOTS_DIR ?? join(ROOT, "test-artifacts", "screens");

export interface Screen {
  name: string;
  /** Opens the screen and waits until its content is there. */
  open: (page: Page) => Promise<void>;
}

export interface ScreenRun {
  /** A fresh page for one viewport: sign in here (the screens run after it). */
  prepare?: (w: WatchedPage) => Promise<void>;
  /** For a server with a self-signed test certificate. */
  ignoreHTTPSErrors?: boolean;
}

let axeSource: string | undefined;
function axe(): string {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  return axeSource;
}

/** What is wrong with the screen shown now: overflow and serious or critical axe violations. */
export async function screenProblems(page: Page): Promise<string[]> {
  const problems: string[] = [];
  const overflow = await page.evaluate(`(() => {
    const doc = document.documentElement;
    const width = doc.clientWidth;
    if (doc.scrollWidth <= width) return null;
    // Name the element that sticks out furthest, leaving out what a scrolling box clips.
    const clipped = (el) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const o = getComputedStyle(p).overflowX;
        if (o !== "visible") return true;
      }
      return false;
    };
    let worst = null;
    for (const el of document.body.querySelectorAll("*")) {
      const r = el.getBoundingClientRect();
      if (r.right > width + 1 && (!worst || r.right > worst.right) && !clipped(el)) {
        worst = { right: Math.round(r.right), what: el.tagName.toLowerCase() + (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\\s+/).join(".") : "") };
      }
    }
    return { scrollWidth: doc.scrollWidth, width, worst };
  })()`) as { scrollWidth: number; width: number; worst: { right: number; what: string } | null } | null;
  if (overflow) {
    problems.push(
      `overflows horizontally: ${overflow.scrollWidth} px in a ${overflow.width} px window` +
        (overflow.worst ? ` (widest: ${overflow.worst.what}, right edge at ${overflow.worst.right} px)` : ""),
    );
  }
  if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(`${axe()};0`);
  const violations = await page.evaluate(`axe.run(document, {
    resultTypes: ["violations"],
    runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] },
  }).then((r) => r.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => v.impact + " " + v.id + ": " + v.help + " — " +
      v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")))`) as string[];
  problems.push(...violations);
  return problems;
}

/**
 * Opens every screen at both sizes and throws one error listing every problem found. Returns the
 * screenshots' paths.
 */
export async function checkScreens(
  browser: Browser,
  baseUrl: string,
  app: string,
  screens: Screen[],
  run: ScreenRun = {},
): Promise<string[]> {
  const failures: string[] = [];
  const shots: string[] = [];
  for (const viewport of VIEWPORTS) {
    const w = await watchedPage(browser, baseUrl, {
      ...(run.ignoreHTTPSErrors ? { ignoreHTTPSErrors: true } : {}),
      viewport: { width: viewport.width, height: viewport.height },
    });
    try {
      await run.prepare?.(w);
      for (const screen of screens) {
        const where = `${app} ${screen.name} at ${viewport.width} px`;
        try {
          await screen.open(w.page);
          // Fonts and late layout settle before measuring.
          await w.page.evaluate("document.fonts.ready.then(() => new Promise(requestAnimationFrame))");
          for (const p of await screenProblems(w.page)) failures.push(`${where}: ${p}`);
          shots.push(await w.screenshot(`${app}-${screen.name}-${viewport.width}`, SCREENS_DIR));
        } catch (err) {
          failures.push(`${where}: ${(err as Error).message.split("\n")[0]}`);
          await w.screenshot(`${app}-${screen.name}-${viewport.width}-failed`, SCREENS_DIR).catch(() => {});
        }
        for (const p of w.problems.splice(0)) failures.push(`${where}: ${p}`);
      }
    } finally {
      await w.context.close();
    }
  }
  if (failures.length) throw new Error(`${failures.length} problem(s):\n  ${failures.join("\n  ")}`);
  return shots;
}
