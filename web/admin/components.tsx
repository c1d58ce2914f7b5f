/** Small building blocks shared by the pages: loading and empty states, errors, dialogs, forms. */
import { cloneElement, type ComponentChildren, isValidElement } from "preact";
import { useCallback, useEffect, useId, useRef, useState } from "preact/hooks";
import { expectedOrigin, friendlyMessage } from "./api.ts";

/** Loads data when `deps` change; `reload` fetches again without clearing what is shown. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
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
  useEffect(() => void run(), [run]);
  return { ...state, reload: run };
}

/** Runs an action, keeping its busy flag and a person-readable error. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await action();
    } catch (err) {
      setError(friendlyMessage(err));
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}

export function PageHeader(props: { title: string; children?: ComponentChildren; lead?: string }) {
  return (
    <header class="page-header">
      <div>
        <h1 tabIndex={-1} id="page-title">{props.title}</h1>
        {props.lead && <p class="lead">{props.lead}</p>}
      </div>
      {props.children && <div class="actions">{props.children}</div>}
    </header>
  );
}

export function Loading(props: { label?: string }) {
  return (
    <div class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {props.label ?? "Loading…"}
    </div>
  );
}

export function Empty(props: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{props.title}</p>
      {props.children && <div class="empty-body">{props.children}</div>}
    </div>
  );
}

export function ErrorNote(props: { error: unknown; onRetry?: () => void }) {
  if (!props.error) return null;
  const text = typeof props.error === "string" ? props.error : friendlyMessage(props.error);
  return (
    <div class="alert alert-error" role="alert">
      <span>{text}</span>
      {props.onRetry && (
        <button type="button" class="btn btn-small" onClick={props.onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Notice(props: { children: ComponentChildren; tone?: "info" | "success" | "warn" }) {
  return <div class={`alert alert-${props.tone ?? "info"}`} role="status">{props.children}</div>;
}

/** A native modal <dialog>: focus is trapped and Escape closes it. */
export function Dialog(
  props: { title: string; open: boolean; onClose: () => void; children: ComponentChildren; wide?: boolean },
) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  // The close event also fires when this component closes the dialog; only a close the user
  // asked for (Escape, the × button) is reported.
  const open = useRef(props.open);
  open.current = props.open;
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog
      ref={ref}
      class={props.wide ? "dialog dialog-wide" : "dialog"}
      aria-labelledby={titleId}
      onClose={() => open.current && props.onClose()}
    >
      {props.open && (
        <>
          <div class="dialog-head">
            <h2 id={titleId}>{props.title}</h2>
            <button type="button" class="btn-icon" aria-label="Close" onClick={props.onClose}>×</button>
          </div>
          {props.children}
        </>
      )}
    </dialog>
  );
}

/** Asks before something that cannot be undone. */
export function Confirm(props: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => Promise<void> | void;
  onClose: () => void;
}) {
  const action = useAction();
  // The dialog stays mounted between uses: a failure must not greet the next thing it asks about.
  const close = () => {
    action.setError(undefined);
    props.onClose();
  };
  return (
    <Dialog title={props.title} open={props.open} onClose={close}>
      <div class="dialog-body">{props.children}</div>
      <ErrorNote error={action.error} />
      <div class="dialog-actions">
        <button type="button" class="btn" onClick={close}>Cancel</button>
        <button
          type="button"
          class="btn btn-danger"
          disabled={action.busy}
          onClick={() => action.run(async () => await props.onConfirm())}
        >
          {action.busy ? "Working…" : props.confirmLabel}
        </button>
      </div>
    </Dialog>
  );
}

/**
 * A labelled control. The label points at the control with `for` rather than wrapping it, so the
 * control's name is the label alone (a wrapped <select> would add its selected option's text);
 * the hint is its description.
 */
export function Field(props: { label: string; children: ComponentChildren; hint?: string }) {
  const id = useId();
  const hintId = `${id}-hint`;
  const control = isValidElement(props.children)
    ? cloneElement(props.children, { id, ...(props.hint ? { "aria-describedby": hintId } : {}) })
    : props.children;
  return (
    <div class="field">
      <label class="field-label" for={id}>{props.label}</label>
      {control}
      {props.hint && <span class="field-hint" id={hintId}>{props.hint}</span>}
    </div>
  );
}

const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
export function ago(iso: string | null | undefined): string {
  if (!iso) return "never";
  const s = (new Date(iso).getTime() - Date.now()) / 1000;
  const abs = Math.abs(s);
  if (abs < 60) return rtf.format(Math.round(s), "second");
  if (abs < 3600) return rtf.format(Math.round(s / 60), "minute");
  if (abs < 86400) return rtf.format(Math.round(s / 3600), "hour");
  return rtf.format(Math.round(s / 86400), "day");
}

export function Time(props: { iso: string | null | undefined }) {
  if (!props.iso) return <span class="muted">never</span>;
  return <time dateTime={props.iso} title={new Date(props.iso).toLocaleString()}>{ago(props.iso)}</time>;
}

export function formatNumber(n: number): string {
  return new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 }).format(n);
}

/** Warns when the page is open at an origin whose writes the server refuses. */
export function OriginWarning() {
  const expected = expectedOrigin();
  if (!expected) return null;
  const there = `${expected}${location.pathname}${location.search}`;
  return (
    <p class="alert alert-warn" role="alert">
      <span>
        This page is open at <code>{location.origin}</code>, but memsvc accepts sign-in and changes only from
        {" "}
        <code>{expected}</code> (its <code>MEMSVC_BASE_URL</code>).{" "}
        <a href={there}>Open the dashboard there</a>.
      </span>
    </p>
  );
}
