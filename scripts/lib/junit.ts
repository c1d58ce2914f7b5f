/** Counts from a `deno test --junit-path` report. */
export interface TestCounts {
  passed: number;
  failed: number;
  skipped: number;
  failures: string[];
  /** Skipped cases, each with its reason when the report gives one. */
  skips: string[];
}

const unescape = (s: string) =>
  s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(
    /&amp;/g,
    "&",
  );

/**
 * Counts leaf test cases only: deno reports a test with steps (node:test's describe/it or
 * t.test) both as the parent and as each "parent > step", and the parent is not a test of its own.
 */
export function countJunit(xml: string): TestCounts {
  const cases = [...xml.matchAll(/<testcase name="([^"]*)"[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g)].map((
    m,
  ) => ({
    name: unescape(m[1]!),
    body: m[3] ?? "",
  }));
  const names = cases.map((c) => c.name);
  const counts: TestCounts = { passed: 0, failed: 0, skipped: 0, failures: [], skips: [] };
  for (const c of cases) {
    if (names.some((n) => n.startsWith(`${c.name} > `))) continue;
    if (/<failure|<error/.test(c.body)) {
      counts.failed++;
      counts.failures.push(c.name);
    } else if (/<skipped/.test(c.body)) {
      counts.skipped++;
      const reason = /<skipped[^>]*message="([^"]*)"/.exec(c.body)?.[1];
      counts.skips.push(reason ? `${c.name}: ${unescape(reason)}` : c.name);
    } else counts.passed++;
  }
  return counts;
}
