/**
 * The platforms a release ships: Bun's cross-compile target, the npm package holding that platform's Bun
 * runtime (pinned with its integrity by package-lock.json), and what identifies its binaries: the ELF or
 * Mach-O machine, Debian's and OCI's architecture names.
 */
export const TARGETS = {
  "linux-x64": {
    os: "linux",
    arch: "x64",
    bun: "bun-linux-x64",
    runtimePackage: "@oven/bun-linux-x64",
    debian: "amd64",
  },
  "linux-arm64": {
    os: "linux",
    arch: "arm64",
    bun: "bun-linux-arm64",
    runtimePackage: "@oven/bun-linux-aarch64",
    debian: "arm64",
  },
  "darwin-x64": {
    os: "darwin",
    arch: "x64",
    bun: "bun-darwin-x64",
    runtimePackage: "@oven/bun-darwin-x64",
    debian: undefined,
  },
  "darwin-arm64": {
    os: "darwin",
    arch: "arm64",
    bun: "bun-darwin-arm64",
    runtimePackage: "@oven/bun-darwin-aarch64",
    debian: undefined,
  },
} as const;

export type Target = keyof typeof TARGETS;
export const TARGET_NAMES = Object.keys(TARGETS) as Target[];

/** `memsvc_1.2.3_linux_arm64.tar.gz`: tool, version (no `v`), os and arch as the target names them. */
export function archiveName(tool: string, version: string, target: Target): string {
  const { os, arch } = TARGETS[target];
  return `${tool}_${version}_${os}_${arch}.tar.gz`;
}

/** Mach-O CPU types (mach/machine.h): CPU_TYPE_X86_64 and CPU_TYPE_ARM64. */
const MACHO_CPU = { x64: 0x01000007, arm64: 0x0100000c } as const;
/** ELF e_machine: EM_X86_64 and EM_AARCH64. */
const ELF_MACHINE = { x64: 62, arm64: 183 } as const;

/**
 * The platform an executable's header says it is for, or undefined: a 64-bit little-endian Mach-O
 * (magic 0xfeedfacf) or ELF (0x7f 'E' 'L' 'F', class 2) for one of the release's CPUs.
 */
export function executablePlatform(header: Uint8Array): Target | undefined {
  if (header.length < 20) return undefined;
  const view = new DataView(header.buffer, header.byteOffset, header.byteLength);
  const arch = (value: number, table: Record<string, number>) =>
    Object.entries(table).find(([, v]) => v === value)?.[0] as "x64" | "arm64" | undefined;
  if (view.getUint32(0, true) === 0xfeedfacf) {
    const cpu = arch(view.getUint32(4, true), MACHO_CPU);
    return cpu && `darwin-${cpu}`;
  }
  if (view.getUint32(0, false) === 0x7f454c46 && header[4] === 2 && header[5] === 1) {
    const cpu = arch(view.getUint16(18, true), ELF_MACHINE);
    return cpu && `linux-${cpu}`;
  }
  return undefined;
}
