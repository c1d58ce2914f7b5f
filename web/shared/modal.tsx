/**
 * The apps' modal: a native <dialog> opened with showModal(), so focus stays inside, the page behind
 * is inert and Escape closes it. A click on the backdrop closes it too. The element marked
 * `data-autofocus` gets the focus when it opens (an input's text is selected).
 *
 * @example
 * <Modal title="Rename" onClose={close}><input data-autofocus defaultValue={name} /></Modal>
 */
import type { ComponentChildren } from "preact";
import { useId, useLayoutEffect, useRef, useState } from "preact/hooks";

export interface ModalProps {
  title: string;
  /** Default true: a modal rendered only while it is shown. */
  open?: boolean;
  onClose: () => void;
  children: ComponentChildren;
  wide?: boolean;
  /** The title names the dialog without being shown (a search box says enough). */
  hideTitle?: boolean;
  class?: string;
}

export function Modal(props: ModalProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const open = props.open ?? true;
  // The close event also fires when this component closes the dialog; only a close the user asked
  // for (Escape, the backdrop, the × button) is reported.
  const wanted = useRef(open);
  wanted.current = open;
  useLayoutEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) {
      d.showModal();
      const first = d.querySelector<HTMLElement>("[data-autofocus]");
      if (first) {
        first.focus();
        if (first instanceof HTMLInputElement) first.select();
      }
    }
    if (!open && d.open) d.close();
  }, [open]);
  const classes = ["dialog", props.wide ? "dialog-wide" : "", props.class ?? ""].filter(Boolean).join(" ");
  return (
    <dialog
      ref={ref}
      class={classes}
      {...(props.hideTitle ? { "aria-label": props.title } : { "aria-labelledby": titleId })}
      onClose={() => wanted.current && props.onClose()}
      onClick={(e) => e.target === e.currentTarget && props.onClose()}
    >
      {open && (
        <div class="dialog-inner">
          {!props.hideTitle && (
            <div class="dialog-head">
              <h2 id={titleId}>{props.title}</h2>
              <button type="button" class="btn-icon" aria-label="Dismiss" onClick={props.onClose}>×</button>
            </div>
          )}
          <div class="dialog-content">{props.children}</div>
        </div>
      )}
    </dialog>
  );
}

/** Asks before something that cannot be undone; a failure is shown in the dialog, which stays open. */
export function Confirm(props: {
  open?: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => Promise<void> | void;
  onClose: () => void;
  /** The sentence a person reads for a failure (default: its message). */
  describe?: (err: unknown) => string;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  // The dialog may stay mounted between uses: a failure must not greet the next thing it asks about.
  const close = () => {
    setError(undefined);
    props.onClose();
  };
  const confirm = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await props.onConfirm();
    } catch (err) {
      setError(props.describe ? props.describe(err) : err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal title={props.title} open={props.open ?? true} onClose={close}>
      <div class="dialog-body">{props.children}</div>
      {error && <div class="alert alert-error" role="alert">{error}</div>}
      <div class="dialog-actions">
        <button type="button" class="btn" onClick={close}>Cancel</button>
        <button type="button" class="btn btn-danger" disabled={busy} onClick={() => void confirm()}>
          {busy ? "Working…" : props.confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
