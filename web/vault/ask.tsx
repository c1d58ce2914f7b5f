/** A small modal asking for one line of text (a name, a path): no native prompt(), keyboard first. */
import { useLayoutEffect, useRef } from "preact/hooks";

export interface AskRequest {
  title: string;
  label: string;
  value: string;
  submit: string;
  /** Choices shown as a select above the text (e.g. a template); its value is passed along. */
  choices?: { label: string; options: { value: string; label: string }[] };
  onSubmit: (value: string, choice: string) => void;
}

export function Ask({ req, onClose }: { req: AskRequest; onClose: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const select = useRef<HTMLSelectElement>(null);
  // The suggestion is the input's initial value and is selected in the same commit that shows the
  // dialog. An effect runs a moment later: it used to set the suggestion then, over what had already
  // been typed (quick hands, a test's fill under load: a note meant as "Ideas" became "Untitled").
  useLayoutEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  return (
    <div class="overlay" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div class="modal-frame" role="dialog" aria-modal="true" aria-label={req.title}>
        <form
          class="modal"
          onKeyDown={(e) => e.key === "Escape" && onClose()}
          onSubmit={(e) => {
            e.preventDefault();
            const value = input.current?.value.trim() ?? "";
            if (!value) return;
            onClose();
            req.onSubmit(value, select.current?.value ?? "");
          }}
        >
          <h2>{req.title}</h2>
          {req.choices && (
            <label>
              {req.choices.label}{" "}
              <select ref={select} aria-label={req.choices.label}>
                {req.choices.options.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
              </select>
            </label>
          )}
          <label>
            {/* Uncontrolled: a re-render of the page must not undo the user's typing. */}
            {req.label} <input ref={input} defaultValue={req.value} />
          </label>
          <div class="actions">
            <button type="button" onClick={onClose}>Cancel</button>
            <button type="submit" class="primary">{req.submit}</button>
          </div>
        </form>
      </div>
    </div>
  );
}
