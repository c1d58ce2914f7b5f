/**
 * THIRD_PARTY_NOTICES.md of one released binary: every third-party part it carries (inputs.ts), with
 * name, version, license and the verbatim license files of the package; identical texts are printed once.
 */
import { createHash } from "node:crypto";
import type { ThirdParty } from "./inputs.ts";

export function noticesText(tool: string, version: string, parts: readonly ThirdParty[]): string {
  const lines = [
    `# Third-party notices: ${tool} ${version}`,
    "",
    `${tool} is licensed under the Apache License, Version 2.0 (LICENSE). The executable also carries the`,
    "following third-party software, each under its own license, listed from the build's own records",
    "(the bundler's inputs with package-lock.json, the Go build information of the wasm renderers).",
    "",
    "| Component | Version | License | In the binary as |",
    "|---|---|---|---|",
    ...parts.map((p) => `| ${p.name} | ${p.version} | ${p.license} | ${p.role} |`),
    "",
  ];
  const printed = new Map<string, string>();
  for (const p of parts) {
    lines.push(`## ${p.name} ${p.version}`, "", `License: ${p.license}`, "");
    if (p.texts.length === 0) {
      lines.push("(the package ships no license file; its declared license is above)", "");
    }
    for (const t of p.texts) {
      const digest = createHash("sha256").update(t.text).digest("hex");
      const first = printed.get(digest);
      if (first) {
        lines.push(`${t.file}: the same text as ${first}.`, "");
        continue;
      }
      printed.set(digest, `${t.file} of ${p.name} ${p.version}`);
      lines.push(`${t.file}:`, "", "```", t.text, "```", "");
    }
  }
  return lines.join("\n");
}
