/**
 * The sign-in screen of all four apps: one centred card with the product's name, a title, what
 * signing in gives, the failure (if any) and the app's own form or buttons.
 */
import type { ComponentChildren } from "preact";

export function SignInCard(props: {
  product: string;
  title: string;
  lead?: ComponentChildren;
  error?: string | undefined;
  children: ComponentChildren;
}) {
  return (
    <main class="signin">
      <div class="signin-card card">
        <p class="signin-brand" aria-hidden="true">{props.product}</p>
        <h1 id="page-title" tabIndex={-1}>{props.title}</h1>
        {props.lead && <p class="muted">{props.lead}</p>}
        {props.error && <div class="alert alert-error" role="alert">{props.error}</div>}
        {props.children}
      </div>
    </main>
  );
}
