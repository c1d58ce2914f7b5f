/**
 * The design system's parts (styled by web/shared/base.css): page header, loading, empty and error
 * states, status badges, a copyable command. Every app builds its pages from these.
 */
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { conditionTone, type Tone } from "./status.ts";

/** A page's title (focused after a client-side page change), its lead and its actions. */
export function PageHeader(props: { title: string; children?: ComponentChildren; lead?: ComponentChildren }) {
  return (
    <div class="page-header">
      <div>
        <h1 tabIndex={-1} id="page-title">{props.title}</h1>
        {props.lead && <p class="lead">{props.lead}</p>}
      </div>
      {props.children && <div class="actions">{props.children}</div>}
    </div>
  );
}

/** A page or part of it waiting for data; announced politely to screen readers. */
export function Loading(props: { label?: string }) {
  return (
    <div class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {props.label ?? "Loading…"}
    </div>
  );
}

/** Nothing to show yet, and what to do about it. */
export function Empty(props: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <p class="empty-title">{props.title}</p>
      {props.children && <div class="empty-body">{props.children}</div>}
    </div>
  );
}

/** A failure in words, with a way to try again; nothing when there is no error. */
export function ErrorNote(props: {
  error: unknown;
  onRetry?: () => void;
  /** The sentence a person reads for the error (default: its message). */
  describe?: (err: unknown) => string;
}) {
  if (!props.error) return null;
  const text = typeof props.error === "string"
    ? props.error
    : props.describe
    ? props.describe(props.error)
    : props.error instanceof Error
    ? props.error.message
    : String(props.error);
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

/** A pill in one of the status tones (status.ts says what each colour means). */
export function Badge(props: { tone?: Tone; children: ComponentChildren; title?: string }) {
  return (
    <span class={`badge badge-${props.tone ?? "neutral"}`} {...(props.title ? { title: props.title } : {})}>
      {props.children}
    </span>
  );
}

/**
 * A condition as a badge: coloured by its status (True, False, Unknown), labelled with its reason
 * (or the status), the message in its tooltip. No condition at all reads "no status", in grey.
 */
export function StatusBadge(
  props: { condition?: { status: string; reason?: string; message?: string } | undefined; label?: string },
) {
  const c = props.condition;
  const tone = conditionTone(c?.status);
  const text = props.label ?? (c ? c.reason || c.status : "no status");
  return (
    <span
      class={`badge badge-${tone}`}
      data-status={c?.status ?? "none"}
      {...(c?.message ? { title: c.message } : {})}
    >
      {text}
    </span>
  );
}

/** A command to copy: shown as code with a Copy button (the clipboard needs a secure context). */
export function CopyCommand(props: { command: string; label?: string }) {
  const [copied, setCopied] = useState<"yes" | "no" | undefined>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.command);
      setCopied("yes");
    } catch {
      setCopied("no");
    }
  };
  return (
    <div class="copy-command">
      <code>{props.command}</code>
      <button
        type="button"
        class="btn btn-small"
        onClick={() => void copy()}
        aria-label={props.label ?? "Copy"}
      >
        Copy
      </button>
      <span role="status" class="muted small">
        {copied === "yes" ? "Copied." : copied === "no" ? "Select the text to copy it." : ""}
      </span>
    </div>
  );
}

/** A table that scrolls sideways inside its box on a narrow screen: a named region in the tab order. */
export function TableWrap(props: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" tabIndex={0} aria-label={props.label}>
      {props.children}
    </div>
  );
}
