/**
 * `$imagepolicy` markers (seed section 2, ImagePolicy): a YAML value followed by a trailing comment
 * holding a JSON object `{"$imagepolicy": "<namespace>:<policy>[:tag|:name]"}` is replaced by the
 * policy's latest image as `image:tag@digest`, by the tag only (`:tag`) or by the name only (`:name`).
 *
 * The rewrite is textual and line by line so every other byte of the file (comments, quoting, key
 * order, indentation, line endings) stays as it was: a write-back commit changes only the values.
 * Left alone: markers naming another namespace (a Repository may only follow its own namespace's
 * policies), markers with more than three colon-separated parts, unknown policies and policies that
 * have not found an image yet.
 *
 * @example
 * applyMarkers("image: app:1.0 # {\"$imagepolicy\": \"team:app\"}\n", "team", lookup)
 * // -> { text: "image: registry/app:1.2@sha256:… # {…}\n", changes: [{ line: 1, … }] }
 */

export interface LatestImage {
  /** Image repository, e.g. registry.example.com/team/app. */
  image: string;
  tag: string;
  /** sha256:…; may be absent when the registry gave none. */
  digest?: string;
}

export interface MarkerChange {
  /** 1-based line number. */
  line: number;
  /** namespace/name of the ImagePolicy. */
  policy: string;
  from: string;
  to: string;
}

// value, then the marker comment: `<prefix><quote?><value><quote?><space># {json}`
const MARKER_LINE = /^(.*?[\s:-]|)(["']?)([^\s"'#]+)\2([ \t]+#[ \t]*)(\{.*"\$imagepolicy".*\})([ \t]*\r?)$/;

/** The value a marker asks for, or undefined when the marker is not one this Repository may use. */
export function markerValue(
  marker: string,
  namespace: string,
  lookup: (name: string) => LatestImage | undefined,
): { policy: string; value: string } | undefined {
  const parts = marker.split(":");
  if (parts.length < 2 || parts.length > 3) return undefined;
  const [ns, name, field] = parts as [string, string, string | undefined];
  if (ns !== namespace || !name) return undefined;
  const latest = lookup(name);
  if (!latest?.tag) return undefined;
  const policy = `${ns}/${name}`;
  if (field === undefined) {
    return { policy, value: `${latest.image}:${latest.tag}${latest.digest ? `@${latest.digest}` : ""}` };
  }
  if (field === "tag") return { policy, value: latest.tag };
  if (field === "name") return { policy, value: latest.image };
  return undefined;
}

export function applyMarkers(
  text: string,
  namespace: string,
  lookup: (name: string) => LatestImage | undefined,
): { text: string; changes: MarkerChange[] } {
  const changes: MarkerChange[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const m = MARKER_LINE.exec(lines[i]!);
    if (!m) continue;
    const [, prefix, quote, current, gap, json, tail] = m as unknown as string[];
    // The value must be a mapping value (`key: v`) or a sequence item (`- v`), not part of a key.
    if (!/(:|^\s*-|\s-)\s+$/.test(prefix!) && !/^\s*$/.test(prefix!)) continue;
    let marker: unknown;
    try {
      marker = (JSON.parse(json!) as Record<string, unknown>)["$imagepolicy"];
    } catch {
      continue;
    }
    if (typeof marker !== "string") continue;
    const wanted = markerValue(marker, namespace, lookup);
    if (!wanted || wanted.value === current) continue;
    lines[i] = `${prefix}${quote}${wanted.value}${quote}${gap}${json}${tail}`;
    changes.push({ line: i + 1, policy: wanted.policy, from: current!, to: wanted.value });
  }
  return { text: changes.length ? lines.join("\n") : text, changes };
}
