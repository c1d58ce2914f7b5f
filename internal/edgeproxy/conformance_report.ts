/**
 * Gateway API ConformanceReport files (GEP-1709; the layout of published reports): validation with
 * every problem named by its path, and a readable summary. apiVersion gateway.networking.k8s.io/v1,
 * kind ConformanceReport; profiles with core and extended results and statistics.
 */
import { formatTable } from "../cli/mod.ts";

export interface ProfileResult {
  result: string;
  statistics: { Passed: number; Skipped: number; Failed: number };
  skippedTests?: string[];
  supportedFeatures?: string[];
  unsupportedFeatures?: string[];
}

export interface ConformanceReport {
  apiVersion: string;
  kind: string;
  date: string;
  gatewayAPIChannel: string;
  gatewayAPIVersion: string;
  implementation: { organization: string; project: string; url: string; version: string; contact?: string[] };
  mode?: string;
  profiles: { name: string; core: ProfileResult; extended?: ProfileResult; summary?: string }[];
}

const RESULTS = ["success", "partial", "failure"];
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every problem of `doc` as "path: what is wrong"; empty when it is a valid report. */
export function validateReport(doc: unknown): string[] {
  const problems: string[] = [];
  const bad = (path: string, what: string) => problems.push(`${path}: ${what}`);
  if (!isObj(doc)) return ["the report must be a mapping"];
  const string = (o: Obj, key: string, path: string, pattern?: RegExp, hint?: string) => {
    const v = o[key];
    if (typeof v !== "string" || v === "") bad(path, "required string");
    else if (pattern && !pattern.test(v)) bad(path, `${hint}, not ${JSON.stringify(v)}`);
  };
  string(
    doc,
    "apiVersion",
    "apiVersion",
    /^gateway\.networking\.k8s\.io\/v1$/,
    "must be gateway.networking.k8s.io/v1",
  );
  string(doc, "kind", "kind", /^ConformanceReport$/, "must be ConformanceReport");
  string(doc, "date", "date", RFC3339, "must be an RFC 3339 timestamp");
  string(
    doc,
    "gatewayAPIChannel",
    "gatewayAPIChannel",
    /^(standard|experimental)$/,
    "must be standard or experimental",
  );
  string(
    doc,
    "gatewayAPIVersion",
    "gatewayAPIVersion",
    /^v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/,
    "must be v<major>.<minor>.<patch>",
  );
  if (doc.mode !== undefined && typeof doc.mode !== "string") bad("mode", "must be a string");
  const impl = doc.implementation;
  if (!isObj(impl)) bad("implementation", "required mapping");
  else {
    for (const key of ["organization", "project", "version"]) string(impl, key, `implementation.${key}`);
    string(impl, "url", "implementation.url", /^https?:\/\//, "must be an http(s) URL");
    if (impl.contact !== undefined && !stringArray(impl.contact)) {
      bad("implementation.contact", "must be a list of strings");
    }
  }
  if (!Array.isArray(doc.profiles) || doc.profiles.length === 0) {
    bad("profiles", "at least one profile is required");
    return problems;
  }
  const names = new Set<string>();
  doc.profiles.forEach((p, i) => {
    const path = `profiles[${i}]`;
    if (!isObj(p)) {
      bad(path, "must be a mapping");
      return;
    }
    string(p, "name", `${path}.name`);
    if (typeof p.name === "string") {
      if (names.has(p.name)) bad(`${path}.name`, `duplicate profile ${p.name}`);
      names.add(p.name);
    }
    if (!isObj(p.core)) bad(`${path}.core`, "required mapping");
    else validateResult(p.core, `${path}.core`, bad);
    if (p.extended !== undefined) {
      if (!isObj(p.extended)) bad(`${path}.extended`, "must be a mapping");
      else validateResult(p.extended, `${path}.extended`, bad);
    }
  });
  return problems;
}

function stringArray(v: unknown): boolean {
  return Array.isArray(v) && v.every((s) => typeof s === "string");
}

function validateResult(r: Obj, path: string, bad: (path: string, what: string) => void) {
  if (typeof r.result !== "string" || !RESULTS.includes(r.result)) {
    bad(`${path}.result`, `must be one of ${RESULTS.join(", ")}`);
  }
  const s = r.statistics;
  if (!isObj(s)) {
    bad(`${path}.statistics`, "required mapping with Passed, Skipped and Failed");
    return;
  }
  for (const key of ["Passed", "Skipped", "Failed"]) {
    const n = s[key];
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0) {
      bad(`${path}.statistics.${key}`, "must be a count (0 or more)");
    }
  }
  const failed = typeof s.Failed === "number" ? s.Failed : 0;
  const skipped = typeof s.Skipped === "number" ? s.Skipped : 0;
  if (r.result === "success" && (failed > 0 || skipped > 0)) {
    bad(`${path}.result`, `success contradicts ${failed} failed and ${skipped} skipped tests`);
  }
  if (r.result !== "failure" && failed > 0) {
    bad(`${path}.result`, `${r.result} contradicts ${failed} failed tests`);
  }
  for (const key of ["skippedTests", "supportedFeatures", "unsupportedFeatures"]) {
    if (r[key] !== undefined && !stringArray(r[key])) bad(`${path}.${key}`, "must be a list of strings");
  }
}

/** The summary `gateway-api conformance -f` prints for a valid report. */
export function formatReport(r: ConformanceReport): string {
  const impl = r.implementation;
  const head = [
    `Implementation:  ${impl.organization}/${impl.project} ${impl.version} (${impl.url})`,
    `Gateway API:     ${r.gatewayAPIVersion}, ${r.gatewayAPIChannel} channel${
      r.mode ? `, mode ${r.mode}` : ""
    }`,
    `Date:            ${r.date}`,
    ...(impl.contact?.length ? [`Contact:         ${impl.contact.join(", ")}`] : []),
    "",
  ];
  const table = formatTable(
    ["PROFILE", "CORE", "PASSED", "SKIPPED", "FAILED", "EXTENDED", "FEATURES"],
    r.profiles.map((p) => [
      p.name,
      p.core.result,
      p.core.statistics.Passed,
      p.core.statistics.Skipped,
      p.core.statistics.Failed,
      p.extended?.result,
      p.extended
        ? `${p.extended.supportedFeatures?.length ?? 0}/${
          (p.extended.supportedFeatures?.length ?? 0) + (p.extended.unsupportedFeatures?.length ?? 0)
        }`
        : undefined,
    ]),
  );
  const details: string[] = [];
  for (const p of r.profiles) {
    const lines: string[] = [];
    const list = (label: string, items: string[] | undefined) => {
      if (items?.length) lines.push(`  ${label}:`, ...items.map((i) => `    ${i}`));
    };
    list("Supported features", p.extended?.supportedFeatures);
    list("Unsupported features", p.extended?.unsupportedFeatures);
    list("Skipped core tests", p.core.skippedTests);
    list("Skipped extended tests", p.extended?.skippedTests);
    if (p.summary) lines.push(`  Summary: ${p.summary}`);
    if (lines.length) details.push("", `${p.name}:`, ...lines);
  }
  return [...head, table.trimEnd(), ...details].join("\n");
}
