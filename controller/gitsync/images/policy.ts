/**
 * Choosing an image tag (seed section 2, ImagePolicy spec.policy; exactly one of):
 * - `semver: {range}`: the highest tag that is a SemVer version inside the range. A leading `v` is
 *   accepted (v1.2.3); pre-releases only match when the range names a pre-release of the same
 *   major.minor.patch, as npm and Flux do.
 * - `tagPattern: {regex, order}`: tags matching the regex; the named group `order` (else the whole
 *   match) is what is sorted. Values that are all numbers sort numerically, otherwise by code point.
 *   `asc` picks the last in ascending order (the highest), `desc` the first (the lowest).
 * - `digest: {tag}`: always that tag; its digest is what changes.
 */
import semver from "semver";
import type { TagPolicy } from "../api/mod.ts";

export class PolicyError extends Error {
  override name = "PolicyError";
}

/** Refuses a policy that cannot be evaluated (bad range or regex), before any registry call. */
export function validatePolicy(p: TagPolicy): void {
  const kinds = ["semver", "tagPattern", "digest"].filter((k) => k in p);
  if (kinds.length !== 1) throw new PolicyError("policy needs exactly one of semver, tagPattern or digest");
  if ("semver" in p && semver.validRange(p.semver.range) === null) {
    throw new PolicyError(`spec.policy.semver.range "${p.semver.range}" is not a SemVer range`);
  }
  if ("tagPattern" in p) {
    try {
      new RegExp(p.tagPattern.regex);
    } catch (err) {
      throw new PolicyError(
        `spec.policy.tagPattern.regex is not a regular expression: ${(err as Error).message}`,
      );
    }
  }
}

/** The tag the policy picks from `tags`, or undefined when none qualifies. */
export function selectTag(p: TagPolicy, tags: readonly string[]): string | undefined {
  validatePolicy(p);
  if ("digest" in p) return tags.includes(p.digest.tag) ? p.digest.tag : undefined;
  if ("semver" in p) {
    let best: { tag: string; version: semver.SemVer } | undefined;
    for (const tag of tags) {
      const version = semver.parse(tag.replace(/^v(?=\d)/, ""));
      if (!version || !semver.satisfies(version, p.semver.range)) continue;
      // Equal versions (1.2.3 and v1.2.3): keep the first seen, so the choice does not flap.
      if (!best || semver.gt(version, best.version)) best = { tag, version };
    }
    return best?.tag;
  }
  const regex = new RegExp(p.tagPattern.regex);
  const candidates: { tag: string; key: string }[] = [];
  for (const tag of tags) {
    const m = regex.exec(tag);
    if (!m) continue;
    candidates.push({ tag, key: m.groups?.order ?? m[0] });
  }
  if (!candidates.length) return undefined;
  const numeric = candidates.every((c) => /^-?\d+(\.\d+)?$/.test(c.key));
  const compare = (a: { key: string; tag: string }, b: { key: string; tag: string }) =>
    numeric
      ? Number(a.key) - Number(b.key) || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0)
      : a.key < b.key
      ? -1
      : a.key > b.key
      ? 1
      : a.tag < b.tag
      ? -1
      : a.tag > b.tag
      ? 1
      : 0;
  candidates.sort(compare);
  return (p.tagPattern.order ?? "asc") === "asc" ? candidates.at(-1)!.tag : candidates[0]!.tag;
}
