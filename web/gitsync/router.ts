/**
 * Client-side routing with the History API under /ui: /ui/apps, /ui/apps/<ns>/<name>,
 * /ui/apps/<ns>/<name>/graph, /ui/revisions/<ns>/<name>, /ui/repos. Links are real <a href>.
 */
import { historyRouter } from "../shared/history_router.ts";

export const BASE = "/ui";

export const segments = () =>
  location.pathname.slice(BASE.length).split("/").filter(Boolean).map(decodeURIComponent);

const router = historyRouter(BASE, segments);
export const navigate = (to: string) => router.navigate(to);
export const useSegments: () => string[] = router.useRoute;

export const link = (...parts: string[]) => `${BASE}/${parts.map(encodeURIComponent).join("/")}`;
