/**
 * A value the page reads from the vault API and reloads after acting on it (the trash, the plugins, a
 * note's shares): loaded when `deps` change and again by the returned `load`. A failure goes to
 * `onError` and leaves what is shown as it was; only the caller decides when a message is cleared.
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "./api.ts";

export function useApiValue<R, T>(
  path: string,
  pick: (answer: R) => T,
  initial: T,
  onError: (message: string) => void,
  deps: unknown[] = [],
): [T, () => void] {
  const [value, setValue] = useState<T>(initial);
  const load = () =>
    void api<R>(path).then(
      (r) => setValue(pick(r)),
      (e) => onError(e instanceof Error ? e.message : String(e)),
    );
  useEffect(load, deps);
  return [value, load];
}
