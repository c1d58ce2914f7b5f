/**
 * The one navigation pattern of the four apps: a top bar with the product's name, the app's pages
 * as links (the current one marked with aria-current) and who is signed in. On a narrow screen the
 * links fold behind a Menu button, so nothing scrolls sideways.
 *
 * @example
 * <TopBar brand="vault" brandHref="/" label="Sections" links={[{ href: "/", label: "Notes", current: true }]}>
 *   <span>{me.name}</span> <button type="button">Sign out</button>
 * </TopBar>
 */
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";

export interface NavLink {
  href: string;
  label: string;
  current?: boolean;
  /** Starts a group (e.g. the admin pages), after a divider with this heading. */
  group?: string;
  /** For apps that route without the History API's click handler (the link stays a real link). */
  onClick?: (e: MouseEvent) => void;
}

export function TopBar(props: {
  brand: string;
  brandHref: string;
  onBrandClick?: (e: MouseEvent) => void;
  /** The navigation landmark's name ("Pages", "Sections"). */
  label: string;
  links: NavLink[];
  /** Who is signed in, sign-out, app-specific controls: right-aligned. */
  children?: ComponentChildren;
}) {
  const [open, setOpen] = useState(false);
  const current = props.links.find((l) => l.current)?.href;
  // Following a link closes the menu.
  useEffect(() => setOpen(false), [current]);
  return (
    <header class="topbar">
      <button
        type="button"
        class="btn-icon nav-toggle"
        aria-expanded={open}
        aria-controls="topbar-nav"
        aria-label="Menu"
        onClick={() => setOpen(!open)}
      >
        ☰
      </button>
      <a class="brand" href={props.brandHref} onClick={props.onBrandClick}>{props.brand}</a>
      <nav id="topbar-nav" class={open ? "topnav open" : "topnav"} aria-label={props.label}>
        <ul>
          {props.links.map((l) => (
            <li key={l.href} class={l.group ? "group-start" : undefined}>
              {l.group && <span class="nav-group">{l.group}</span>}
              <a
                href={l.href}
                aria-current={l.current ? "page" : undefined}
                class={l.current ? "active" : undefined}
                onClick={(e) => {
                  setOpen(false);
                  l.onClick?.(e);
                }}
              >
                {l.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {props.children && <div class="who">{props.children}</div>}
    </header>
  );
}
