/**
 * A CycloneDX 1.6 SBOM (JSON) of one tool, built with the CycloneDX project's own library from what its
 * binaries are made of (inputs.ts). The generators on npm (cyclonedx-npm, cdxgen) describe a whole npm
 * project — here one package.json with seven tools' dependencies and the development toolchain — so they
 * cannot say what one binary carries; the bundler's inputs can, as CycloneDX's webpack plugin does for a
 * webpack bundle.
 */
import { createHash } from "node:crypto";
import * as CDX from "@cyclonedx/cyclonedx-library";
import type { ThirdParty } from "./inputs.ts";
import type { Target } from "./targets.ts";

export interface SbomOptions {
  tool: string;
  version: string;
  commit: string;
  /** The release's time, for the metadata (SOURCE_DATE_EPOCH): the same inputs give the same file. */
  timestamp: Date;
  targets: readonly Target[];
  /** Archive name => sha256 hex of the archives this SBOM describes. */
  archives: Record<string, string>;
  source: string;
}

export function sbomJson(o: SbomOptions, parts: readonly ThirdParty[]): string {
  const bom = new CDX.Models.Bom();
  bom.serialNumber = `urn:uuid:${uuidFrom(`${o.tool}@${o.version}@${o.commit}`)}`;
  bom.metadata.timestamp = o.timestamp;
  bom.metadata.tools.components.add(
    new CDX.Models.Component(CDX.Enums.ComponentType.Library, "cyclonedx-library", {
      group: "@cyclonedx",
      version: "10.3.0",
    }),
  );
  const licenses = (expression: string) => {
    const set = new CDX.Models.LicenseRepository();
    if (expression && expression !== "NOASSERTION") set.add(new CDX.Models.LicenseExpression(expression));
    return set;
  };
  const main = new CDX.Models.Component(CDX.Enums.ComponentType.Application, o.tool, {
    version: o.version,
    bomRef: `${o.tool}@${o.version}`,
    licenses: licenses("Apache-2.0"),
    description: `${o.tool} ${o.version} (commit ${o.commit}) for ${o.targets.join(", ")}`,
  });
  main.externalReferences.add(
    new CDX.Models.ExternalReference(o.source, CDX.Enums.ExternalReferenceType.VCS),
  );
  for (const [name, sha256] of Object.entries(o.archives).sort()) {
    const ref = new CDX.Models.ExternalReference(name, CDX.Enums.ExternalReferenceType.Distribution);
    ref.hashes.set(CDX.Enums.HashAlgorithm["SHA-256"], sha256);
    main.externalReferences.add(ref);
  }
  bom.metadata.component = main;
  const type = {
    library: CDX.Enums.ComponentType.Library,
    framework: CDX.Enums.ComponentType.Framework,
    "machine-learning-model": CDX.Enums.ComponentType.MachineLearningModel,
  } as const;
  for (const p of parts) {
    const c = new CDX.Models.Component(type[p.type], p.name, {
      version: p.version,
      bomRef: p.purl,
      licenses: licenses(p.license),
      description: p.role,
    });
    c.purl = p.purl;
    for (const h of p.hashes) c.hashes.set(CDX.Enums.HashAlgorithm[h.alg], h.content);
    bom.components.add(c);
    main.dependencies.add(c.bomRef);
  }
  const serializer = new CDX.Serialize.JsonSerializer(
    new CDX.Serialize.JSON.Normalize.Factory(CDX.Spec.Spec1dot6),
  );
  return `${serializer.serialize(bom, { sortLists: true, space: 2 })}\n`;
}

/** A name-based UUID (version 5 layout) from `name`, so the serial number is the same for the same release. */
function uuidFrom(name: string): string {
  const hash = new Uint8Array(createHash("sha1").update(name).digest());
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = Buffer.from(hash.subarray(0, 16)).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
