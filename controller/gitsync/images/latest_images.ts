/**
 * The latest image of each ImagePolicy, by name, as the write-back reads them: only policies whose
 * scan has found an image (status.latestTag), so a marker naming a policy that has not scanned yet,
 * or whose scan failed before it ever succeeded, is left as it is.
 */
import type { LatestImage } from "./markers.ts";
import type { ImagePolicy } from "../api/mod.ts";

export function latestImages(policies: Iterable<ImagePolicy>): Map<string, LatestImage> {
  const out = new Map<string, LatestImage>();
  for (const p of policies) {
    const s = p.status;
    if (!s?.latestTag || !p.metadata?.name) continue;
    out.set(p.metadata.name, {
      image: p.spec.image,
      tag: s.latestTag,
      ...(s.latestDigest ? { digest: s.latestDigest } : {}),
    });
  }
  return out;
}
