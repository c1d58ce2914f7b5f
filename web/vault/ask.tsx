/** A small modal asking for one line of text (a name, a path): no native prompt(), keyboard first. */
import { useRef } from "preact/hooks";
import { Modal } from "../shared/modal.tsx";

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
  // The suggestion is the input's initial value, selected as the dialog opens (data-autofocus):
  // setting it a moment later would write over what quick hands (or a test under load) typed.
  return (
    <Modal title={req.title} onClose={onClose}>
      <form
        class="modal stack"
        onSubmit={(e) => {
          e.preventDefault();
          const value = input.current?.value.trim() ?? "";
          if (!value) return;
          onClose();
          req.onSubmit(value, select.current?.value ?? "");
        }}
      >
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
          {req.label} <input ref={input} defaultValue={req.value} data-autofocus />
        </label>
        <div class="actions">
          <button type="button" onClick={onClose}>Cancel</button>
          <button type="submit" class="primary">{req.submit}</button>
        </div>
      </form>
    </Modal>
  );
}
