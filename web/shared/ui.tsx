/** Small building blocks of the four apps' pages. */

/** A page or part of it waiting for data; announced politely to screen readers. */
export function Loading(props: { label?: string }) {
  return (
    <div class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {props.label ?? "Loading…"}
    </div>
  );
}
