/**
 * SOPS in the render path: the encrypted files of a checkout are decrypted in memory before the
 * renderers read it, with the age keys of the Application's spec.decryption Secret. An encrypted file in
 * an Application without spec.decryption fails the Revision with ValidationFailure (it would otherwise be
 * applied as ciphertext); one that does not decrypt or whose MAC does not match fails with
 * DecryptionFailure. Plaintext never leaves memory.
 */
import type { KubeClient } from "../../../internal/k8s/mod.ts";
import { ValidationFailure } from "../rollout/groups.ts";
import type { Tree } from "../source/tree.ts";
import { DecryptionFailure, decryptSops, sopsFormat } from "./decrypt.ts";
import { type Decryption, DECRYPTION_KEY_LABEL } from "../api/mod.ts";
import { readLabelledSecret } from "../client/mod.ts";

/**
 * The SOPS files of a tree, found once per tree: a commit's tree object is shared by every Application
 * and every reconcile of it (CommitTrees), and a repository may hold thousands of files.
 */
const scanned = new WeakMap<Tree, [string, Uint8Array][]>();
function encryptedFiles(tree: Tree): [string, Uint8Array][] {
  let found = scanned.get(tree);
  if (!found) {
    found = [...tree].filter(([path, bytes]) => sopsFormat(path, bytes) !== undefined);
    scanned.set(tree, found);
  }
  return found;
}

/** The tree with its SOPS files decrypted; `keys` is asked only when there is something to decrypt. */
export async function decryptTree(
  tree: Tree,
  decryption: Decryption | undefined,
  keys: () => Promise<string[]>,
): Promise<Tree> {
  const encrypted = encryptedFiles(tree);
  if (!encrypted.length) return tree;
  if (!decryption) {
    const names = encrypted.slice(0, 5).map(([p]) => p).join(", ");
    throw new ValidationFailure(
      `${encrypted.length} SOPS-encrypted file(s) (${names}) but the Application has no spec.decryption`,
    );
  }
  const identities = await keys();
  const out = new Map(tree);
  for (const [path, bytes] of encrypted) out.set(path, await decryptSops(path, bytes, identities));
  return out;
}

/**
 * The age identities of spec.decryption.secretRef: every `AGE-SECRET-KEY-` line of each `*.agekey` entry
 * of a Secret in the Application's namespace labelled sync.gitsync.io/decryption-key=true, read uncached.
 */
export async function readDecryptionKeys(
  client: KubeClient,
  namespace: string,
  decryption: Decryption,
): Promise<string[]> {
  const name = decryption.secretRef?.name;
  if (!name) throw new DecryptionFailure("spec.decryption.secretRef names no Secret with the age keys");
  const secret = await readLabelledSecret(client, {
    namespace,
    name,
    field: "spec.decryption.secretRef",
    label: DECRYPTION_KEY_LABEL,
    notUsed: "its keys are not used",
  }, (message) => new DecryptionFailure(message));
  const identities = Object.entries(secret.data ?? {})
    .filter(([key]) => key.endsWith(".agekey"))
    .flatMap(([, value]) => Buffer.from(value, "base64").toString("utf8").split(/\r?\n/))
    .map((line) => line.trim())
    .filter((line) => line.startsWith("AGE-SECRET-KEY-"));
  if (!identities.length) {
    throw new DecryptionFailure(`Secret ${namespace}/${name} has no .agekey entry with an AGE-SECRET-KEY`);
  }
  return identities;
}
