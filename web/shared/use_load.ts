/**
 * The loading hook of the browser apps: loads when `deps` change (and, with `everyMs`, again on that
 * interval), keeps what is shown while a reload runs or fails, and drops answers that a newer load
 * overtook. `reload` loads again at once.
 *
 * @example
 * const tree = useLoad(() => request<Tree>("/api/notes/tree"), []);
 * if (tree.error) return <ErrorNote error={tree.error} onRetry={tree.reload} />;
 */
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

export interface Loaded<T> {
  data?: T;
  error?: unknown;
  loading: boolean;
  reload: () => Promise<void>;
}

export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
  options: { everyMs?: number } = {},
): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const seq = useRef(0);
  const run = useCallback(async () => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    try {
      const data = await load();
      if (mine === seq.current) setState({ data, loading: false });
    } catch (error) {
      if (mine === seq.current) setState((s) => ({ data: s.data, error, loading: false }));
    }
    // `deps` (not `load`, a new closure each render) decide when to load again.
  }, deps);
  useEffect(() => {
    void run();
    if (!options.everyMs) return;
    const timer = setInterval(() => void run(), options.everyMs);
    return () => clearInterval(timer);
  }, [run, options.everyMs]);
  // A load still running when the component goes must not set its state.
  useEffect(() => () => void ++seq.current, []);
  return { ...state, reload: run };
}
