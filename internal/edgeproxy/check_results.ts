/**
 * The result document of `edgectl check`, shaped like `linkerd check -o json` (categories of checks,
 * each success, warning or error, with a hint) and printed like it: √ passed, ‼ warning, × error.
 */
export type CheckResult = "success" | "warning" | "error";

export interface Check {
  description: string;
  result: CheckResult;
  /** Why it is not a success. */
  error?: string;
  /** What to do about it. */
  hint?: string;
}

export interface Category {
  categoryName: string;
  checks: Check[];
}

export interface CheckReport {
  success: boolean;
  categories: Category[];
}

export function report(categories: Category[]): CheckReport {
  return { success: categories.every((c) => c.checks.every((x) => x.result !== "error")), categories };
}

const MARK: Record<CheckResult, string> = { success: "√", warning: "‼", error: "×" };

export function formatReport(r: CheckReport): string {
  const lines: string[] = [];
  for (const c of r.categories) {
    lines.push(c.categoryName, "-".repeat(c.categoryName.length));
    for (const check of c.checks) {
      lines.push(`${MARK[check.result]} ${check.description}`);
      if (check.error) lines.push(...check.error.split("\n").map((l) => `    ${l}`));
      if (check.hint) lines.push(`    see: ${check.hint}`);
    }
    lines.push("");
  }
  const warnings = r.categories.some((c) => c.checks.some((x) => x.result === "warning"));
  lines.push(`Status check results are ${r.success ? (warnings ? "√ (with warnings)" : "√") : "×"}`);
  return lines.join("\n");
}
