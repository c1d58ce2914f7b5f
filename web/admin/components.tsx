/** Small building blocks of the dashboard's pages (the apps' shared ones come from web/shared). */
import { cloneElement, type ComponentChildren, isValidElement } from "preact";
import { useId, useState } from "preact/hooks";
import { Confirm as SharedConfirm } from "../shared/modal.tsx";
import { ErrorNote as SharedErrorNote } from "../shared/ui.tsx";
import { expectedOrigin, friendlyMessage } from "./api.ts";

export { Modal as Dialog } from "../shared/modal.tsx";
export { Empty, Loading, PageHeader } from "../shared/ui.tsx";

/** A failure in words a person understands, with a way to try again. */
export function ErrorNote(props: { error: unknown; onRetry?: () => void }) {
  return <SharedErrorNote {...props} describe={friendlyMessage} />;
}
export { useLoad } from "../shared/use_load.ts";

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

/**
 * useAction for a page that lists things: `act(what, message)` runs `what`, says `message` (`done`)
 * once it worked and reloads the list; a failure is in `error`. It returns whether it worked.
 */
export function useListAction(reload: () => Promise<unknown>) {
  const action = useAction();
  const [done, setDone] = useState<string>();
  const act = async (what: () => Promise<unknown>, message: string) => {
    setDone(undefined);
    const ok = await action.run(async () => {
      await what();
      return true;
    });
    if (ok) {
      setDone(message);
      await reload();
    }
    return ok;
  };
  return { ...action, done, setDone, act };
}

export function Notice(props: { children: ComponentChildren; tone?: "info" | "success" | "warn" }) {
  return <div class={`alert alert-${props.tone ?? "info"}`} role="status">{props.children}</div>;
}

/** Asks before something that cannot be undone; a failure is said in words a person understands. */
export function Confirm(props: Omit<Parameters<typeof SharedConfirm>[0], "describe">) {
  return <SharedConfirm {...props} describe={friendlyMessage} />;
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
