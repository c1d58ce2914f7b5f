/**
 * Seeded, realistic benchmark data: the kind of facts, preferences, decisions and code notes an AI
 * coding agent stores. Sentences are assembled from templates and vocabularies, so every entry is
 * different (duplicates are skipped) while the words repeat the way real project vocabulary does,
 * which matters for both the full-text index and the vector tier.
 */

/** mulberry32: small, fast and good enough to pick words; the same seed gives the same data. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PROJECTS = [
  "Atlas",
  "Beacon",
  "Cobalt",
  "Drift",
  "Ember",
  "Falcon",
  "Garnet",
  "Harbor",
  "Iris",
  "Juniper",
  "Kestrel",
  "Lumen",
  "Meridian",
  "Nimbus",
  "Orchid",
  "Pylon",
  "Quartz",
  "Rook",
  "Sable",
  "Tundra",
];
const SERVICES = [
  "billing API",
  "auth service",
  "search indexer",
  "notification worker",
  "admin dashboard",
  "ingest pipeline",
  "payments gateway",
  "report generator",
  "mobile backend",
  "webhook relay",
  "feature flag service",
  "export job",
  "CLI",
  "GraphQL gateway",
  "scheduler",
  "image resizer",
];
const TECH = [
  "PostgreSQL 15",
  "Redis",
  "Kafka",
  "SQLite",
  "Go 1.22",
  "TypeScript",
  "Rust",
  "Python 3.12",
  "gRPC",
  "Kubernetes",
  "Terraform",
  "Nginx",
  "S3",
  "ClickHouse",
  "RabbitMQ",
  "Elasticsearch",
  "Deno",
  "Bun",
  "React",
  "Vite",
  "pgx",
  "Prisma",
  "OpenTelemetry",
  "Grafana",
];
const PEOPLE = [
  "Alice",
  "Bruno",
  "Chen",
  "Dana",
  "Emeka",
  "Farah",
  "Goran",
  "Hana",
  "Ivan",
  "Julia",
  "Kenji",
  "Leila",
  "Marco",
  "Nadia",
  "Omar",
  "Priya",
];
const TOPICS = [
  "retries",
  "rate limiting",
  "pagination",
  "schema migrations",
  "connection pooling",
  "log retention",
  "secret rotation",
  "cache invalidation",
  "error budgets",
  "code review",
  "release notes",
  "load testing",
  "backups",
  "time zones",
  "feature flags",
  "on-call handover",
  "dependency upgrades",
  "tracing",
  "idempotency keys",
  "input validation",
];
const FILES = [
  "src/db/pool.ts",
  "internal/auth/session.go",
  "cmd/worker/main.go",
  "api/routes/invoices.ts",
  "lib/retry.rs",
  "config/production.yaml",
  "migrations/0042_add_index.sql",
  "web/src/hooks/useSearch.ts",
  "scripts/release.sh",
  "pkg/queue/consumer.go",
  "server/middleware/cors.ts",
  "charts/values.yaml",
];
const VERBS = ["prefers", "asked for", "insists on", "dislikes", "wants", "avoids"];
const STYLES = [
  "small pull requests",
  "tabs over spaces",
  "explicit error types",
  "table-driven tests",
  "squash merges",
  "conventional commit messages",
  "early returns",
  "no default exports",
  "snake_case column names",
  "ISO 8601 timestamps in logs",
  "feature branches that live less than a day",
  "comments that explain why",
  "dark mode screenshots in docs",
  "integration tests against a real database",
];
const REASONS = [
  "because the old approach leaked connections under load",
  "after the outage in March",
  "to keep p99 latency under 200 ms",
  "since the vendor deprecated the previous API",
  "so on-call can debug without shell access",
  "because audit needs a full trail",
  "to cut the cloud bill by a third",
  "after a long discussion in the architecture review",
  "because mobile clients retry aggressively",
  "to make local development start in one command",
];
const NUMBERS = [3, 5, 8, 10, 15, 30, 60, 90, 100, 250, 500, 1000, 4096];
const UNITS = [
  "seconds",
  "minutes",
  "requests per second",
  "connections",
  "days",
  "MB",
  "retries",
  "workers",
];

type Pick = <T>(xs: readonly T[]) => T;

const TEMPLATES: ((p: Pick) => string)[] = [
  (p) => `${p(PROJECTS)} ${p(SERVICES)} uses ${p(TECH)} for ${p(TOPICS)}; do not replace it with ${p(TECH)}.`,
  (p) => `${p(PEOPLE)} ${p(VERBS)} ${p(STYLES)} in the ${p(PROJECTS)} repository.`,
  (p) => `Decision: the ${p(PROJECTS)} ${p(SERVICES)} moves ${p(TOPICS)} to ${p(TECH)} ${p(REASONS)}.`,
  (p) =>
    `In ${p(FILES)} the ${p(TOPICS)} logic caps at ${p(NUMBERS)} ${
      p(UNITS)
    }; raise it only with a load test.`,
  (p) =>
    `The ${p(SERVICES)} of ${p(PROJECTS)} runs ${p(NUMBERS)} ${p(UNITS)} in production and ${
      p(NUMBERS)
    } in staging.`,
  (p) => `${p(PEOPLE)} owns ${p(TOPICS)} for ${p(PROJECTS)}; ask them before changing ${p(FILES)}.`,
  (p) =>
    `Bug note: ${p(PROJECTS)} ${p(SERVICES)} fails on ${p(TOPICS)} when ${p(TECH)} restarts; the fix is in ${
      p(FILES)
    }.`,
  (p) => `We agreed to keep ${p(TOPICS)} out of the ${p(SERVICES)} ${p(REASONS)}.`,
  (p) => `${p(PEOPLE)} reviewed the ${p(PROJECTS)} design and asked for ${p(STYLES)} plus ${p(TOPICS)} docs.`,
  (p) => `Run the ${p(PROJECTS)} ${p(SERVICES)} locally with ${p(TECH)} and seed data from ${p(FILES)}.`,
  (p) =>
    `The ${p(TECH)} upgrade for ${p(PROJECTS)} is blocked on ${p(TOPICS)}; ${p(PEOPLE)} tracks it weekly.`,
  (p) =>
    `Code note: ${p(FILES)} wraps ${p(TECH)} calls with ${
      p(TOPICS)
    } and logs every failure with the request id.`,
];

const QUESTIONS: ((p: Pick) => string)[] = [
  (p) => `what does ${p(PROJECTS)} use for ${p(TOPICS)}`,
  (p) => `who owns ${p(TOPICS)} in ${p(PROJECTS)}`,
  (p) => `${p(SERVICES)} ${p(TECH)}`,
  (p) => `how do I run the ${p(SERVICES)} locally`,
  (p) => `why did we move ${p(TOPICS)} to ${p(TECH)}`,
  (p) => `what does ${p(PEOPLE)} prefer in code review`,
  (p) => `limits in ${p(FILES)}`,
  (p) => `${p(TOPICS)} bug after ${p(TECH)} restart`,
];

function picker(next: () => number): Pick {
  return <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
}

/** `n` distinct memory texts, the same for the same seed. */
export function memories(n: number, seed = 1): string[] {
  const next = rng(seed);
  const p = picker(next);
  const seen = new Set<string>();
  const out: string[] = [];
  while (out.length < n) {
    let text = p(TEMPLATES)(p);
    // The template space is large but finite: past a few hundred thousand draws, a dated suffix
    // (as agents often add) keeps entries distinct instead of looping.
    if (seen.has(text)) text = `${text} (noted ${dateOf(next)})`;
    if (seen.has(text)) continue;
    seen.add(text);
    out.push(text);
  }
  return out;
}

/** `n` search queries over the same vocabulary. */
export function queries(n: number, seed = 2): string[] {
  const p = picker(rng(seed));
  return Array.from({ length: n }, () => p(QUESTIONS)(p));
}

function dateOf(next: () => number): string {
  const day = new Date(Date.UTC(2025, 0, 1) + Math.floor(next() * 700) * 86_400_000);
  return day.toISOString().slice(0, 10);
}
