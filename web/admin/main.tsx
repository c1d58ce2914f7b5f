/**
 * The memsvc dashboard: who is signed in, the navigation and the page for the current route.
 * In MEMSVC_AUTH_MODE=user people sign in with email and password (an HttpOnly session cookie);
 * in bearer mode with the shared token (kept in this tab only); in none mode nobody signs in.
 */
import { render } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, authMode, bearer, request, type SessionUser, setUnauthorizedHandler } from "./api.ts";
import { Loading, OriginWarning } from "./components.tsx";
import { href, navigate, type Route, useRoute } from "./router.ts";
import { type NavLink, TopBar } from "../shared/top_bar.tsx";
import { BrowsePage } from "./pages/browse.tsx";
import { GraphPage } from "./pages/graph.tsx";
import { HealthPage } from "./pages/health.tsx";
import { MetricsPage } from "./pages/metrics.tsx";
import { ProjectsPage } from "./pages/projects.tsx";
import { SignInPage } from "./pages/sign_in.tsx";
import { TodayPage } from "./pages/today.tsx";
import { TokensPage } from "./pages/tokens.tsx";
import { UsersPage } from "./pages/users.tsx";

export interface Me {
  user: SessionUser;
  admin: boolean;
  mode: "user" | "bearer" | "none";
}

interface PageDef {
  id: string;
  title: string;
  admin?: boolean;
  render: (me: Me, route: Route) => preact.JSX.Element;
}

const PAGES: PageDef[] = [
  { id: "browse", title: "Browse", render: (_me, r) => <BrowsePage route={r} /> },
  { id: "graph", title: "Graph", render: (_me, r) => <GraphPage route={r} /> },
  { id: "today", title: "Today", render: () => <TodayPage /> },
  { id: "projects", title: "Projects", render: () => <ProjectsPage /> },
  { id: "tokens", title: "API Tokens", render: (me) => <TokensPage mode={me.mode} /> },
  { id: "users", title: "Users", admin: true, render: (me) => <UsersPage me={me} /> },
  { id: "health", title: "Health", admin: true, render: () => <HealthPage /> },
  { id: "metrics", title: "Metrics", admin: true, render: () => <MetricsPage /> },
];

const OPERATOR: SessionUser = { id: "operator", email: "operator", name: "Operator", role: "admin" };

async function whoAmI(): Promise<Me | null> {
  const mode = authMode();
  if (mode === "none") return { user: OPERATOR, admin: true, mode };
  if (mode === "bearer") {
    if (!bearer.get()) return null;
    // Any authenticated read proves the token; the operator is the only caller there is.
    await request("GET", "/v1/me/active-project", { quiet401: true });
    return { user: OPERATOR, admin: true, mode };
  }
  const session = await api.session();
  if (!session?.user) return null;
  return { user: session.user, admin: session.user.role === "admin", mode };
}

function App() {
  const route = useRoute();
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [bootError, setBootError] = useState<string>();

  const refresh = async () => {
    try {
      setMe(await whoAmI());
    } catch {
      if (authMode() === "bearer") bearer.clear();
      setMe(null);
      if (authMode() !== "bearer") setBootError("Can't reach memsvc. Check that the server is running.");
    }
  };
  useEffect(() => {
    setUnauthorizedHandler(() => {
      if (authMode() === "bearer") bearer.clear();
      setMe(null);
    });
    void refresh();
  }, []);

  const visible = PAGES.filter((p) => !p.admin || me?.admin);
  const page = visible.find((p) => p.id === route.page);

  useEffect(() => {
    if (!me) return;
    if (!page) navigate(href(visible[0]!.id), true);
  }, [me, route.page]);

  const shown = useRef<string | undefined>(undefined);
  useEffect(() => {
    document.title = page ? `${page.title} · memsvc` : me === null ? "Sign in · memsvc" : "memsvc";
    // After a client-side page change, move focus to the new page's heading so keyboard and
    // screen-reader users land on it. Not on the first page: there Tab starts at the skip link.
    const key = `${page?.id}:${me === null}`;
    if (shown.current !== undefined && shown.current !== key) {
      requestAnimationFrame(() => document.getElementById("page-title")?.focus({ preventScroll: true }));
    }
    if (me !== undefined) shown.current = key;
  }, [page?.id, me === null, me === undefined]);

  if (me === undefined) {
    return (
      <main class="center">
        <Loading label="Starting…" />
      </main>
    );
  }
  if (me === null) return <SignInPage mode={authMode()} error={bootError} onSignedIn={refresh} />;

  const signOut = async () => {
    if (me.mode === "bearer") bearer.clear();
    else await api.signOut().catch(() => {});
    setMe(null);
    navigate(href(""), true);
  };

  const userPages = visible.filter((p) => !p.admin);
  const adminPages = visible.filter((p) => p.admin);
  const links: NavLink[] = [
    ...userPages.map((p) => ({ href: href(p.id), label: p.title, current: p.id === page?.id })),
    ...adminPages.map((p, i) => ({
      href: href(p.id),
      label: p.title,
      current: p.id === page?.id,
      ...(i === 0 ? { group: "Admin" } : {}),
    })),
  ];

  return (
    <div class="shell">
      <a class="skip" href="#main">Skip to content</a>
      <TopBar brand="memsvc" brandHref={href("browse")} label="Pages" links={links}>
        {me.mode === "none"
          ? (
            <span class="badge badge-warn" title="MEMSVC_AUTH_MODE=none">
              No sign-in (development mode)
            </span>
          )
          : (
            <>
              <span class="who-name" data-testid="who">{me.user.email}</span>
              {me.admin && <span class="badge">admin</span>}
              <button type="button" class="btn btn-small" onClick={signOut}>Sign out</button>
            </>
          )}
      </TopBar>
      <main id="main" class="main">
        <OriginWarning />
        {me.mode === "none" && (
          <p class="alert alert-warn">
            Authentication is off (<code>MEMSVC_AUTH_MODE=none</code>): everyone who can reach this address
            acts as the operator. Use it for local development only.
          </p>
        )}
        {page ? page.render(me, route) : <Loading />}
      </main>
    </div>
  );
}

render(<App />, document.getElementById("app")!);
