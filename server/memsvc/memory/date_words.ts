/**
 * Date words in a search query ("… last week", "… yesterday", "… on Tuesday", "… in March",
 * "… 3 days ago", "… on 2026-03-14", "… since Monday"): the time window they name, relative to `now`
 * in UTC, and the query without them. Search boosts entries captured in the window (search.ts); the
 * words themselves would only add noise to both tiers.
 *
 * Ambiguous words parse only in a date phrase: a month needs "in", "during", "since", "last",
 * "early" or "late" before it or a day number or year around it ("march forward" and "may I" stay text),
 * a weekday needs "on", "last", "since" or "this past" before it. A window is [from, to) and never ends
 * after the end of today: a weekday or month is its most recent past occurrence.
 */

export interface DateWindow {
  from: Date;
  to: Date;
}

export interface DateQuery {
  /** The query with the date phrase removed (whitespace collapsed). */
  rest: string;
  window?: DateWindow;
}

const DAY = 86_400_000;
const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];
const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
const NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};

const MONTH = `(${MONTHS.join("|")}|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)`;
const WEEKDAY = `(${WEEKDAYS.join("|")})`;
const COUNT = `(\\d{1,3}|${Object.keys(NUMBERS).join("|")})`;

type Rule = { re: RegExp; window: (m: RegExpExecArray, today: number) => DateWindow | undefined };

/** Most specific first; each regex must match a whole phrase (word boundaries both sides). */
const RULES: Rule[] = [
  {
    // on 2026-03-14, since 2026-03-14
    re: /\b(on |since )?(\d{4})-(\d{2})-(\d{2})\b/i,
    window: (m, today) => {
      const day = Date.UTC(+m[2]!, +m[3]! - 1, +m[4]!);
      if (Number.isNaN(day) || new Date(day).getUTCDate() !== +m[4]!) return undefined;
      return m[1]?.trim().toLowerCase() === "since" ? span(day, today + DAY) : span(day, day + DAY);
    },
  },
  {
    // March 14, March 14th 2026, on 14 March
    re: new RegExp(
      `\\b(on |since )?(?:${MONTH} (\\d{1,2})(?:st|nd|rd|th)?|(\\d{1,2})(?:st|nd|rd|th)? (?:of )?${MONTH})(?:,? (\\d{4}))?\\b`,
      "i",
    ),
    window: (m, today) => {
      const month = monthIndex(m[2] ?? m[5]!);
      const date = +(m[3] ?? m[4]!);
      let day = Date.UTC(m[6] ? +m[6] : new Date(today).getUTCFullYear(), month, date);
      if (new Date(day).getUTCDate() !== date) return undefined;
      if (!m[6] && day > today) day = Date.UTC(new Date(today).getUTCFullYear() - 1, month, date);
      return m[1]?.trim().toLowerCase() === "since" ? span(day, today + DAY) : span(day, day + DAY);
    },
  },
  {
    // 3 days ago, a week ago, two months ago
    re: new RegExp(`\\b${COUNT} (day|week|month)s? ago\\b`, "i"),
    window: (m, today) => {
      const n = count(m[1]!);
      const unit = m[2]!.toLowerCase();
      if (unit === "day") return span(today - n * DAY, today - (n - 1) * DAY);
      // "two weeks ago" is loose: the week around that day.
      if (unit === "week") return span(today - (7 * n + 3) * DAY, today - (7 * n - 4) * DAY);
      const t = new Date(today);
      return monthSpan(t.getUTCFullYear(), t.getUTCMonth() - n);
    },
  },
  {
    re: /\b(yesterday|today|this morning|tonight)\b/i,
    window: (m, today) =>
      m[1]!.toLowerCase() === "yesterday" ? span(today - DAY, today) : span(today, today + DAY),
  },
  {
    // last week, this week, last month, this month, last year, this year
    re: /\b(last|this|past) (week|month|year)\b/i,
    window: (m, today) => {
      const last = m[1]!.toLowerCase() !== "this";
      const t = new Date(today);
      switch (m[2]!.toLowerCase()) {
        case "week": {
          // Weeks start on Monday.
          const monday = today - ((t.getUTCDay() + 6) % 7) * DAY;
          return last ? span(monday - 7 * DAY, monday) : span(monday, today + DAY);
        }
        case "month":
          return last ? monthSpan(t.getUTCFullYear(), t.getUTCMonth() - 1) : span(
            Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), 1),
            today + DAY,
          );
        default:
          return last
            ? span(Date.UTC(t.getUTCFullYear() - 1, 0, 1), Date.UTC(t.getUTCFullYear(), 0, 1))
            : span(Date.UTC(t.getUTCFullYear(), 0, 1), today + DAY);
      }
    },
  },
  {
    // on Tuesday, last Tuesday, this past Tuesday, since Monday
    re: new RegExp(`\\b(on|last|since|this past) ${WEEKDAY}\\b`, "i"),
    window: (m, today) => {
      const want = WEEKDAYS.indexOf(m[2]!.toLowerCase());
      // The most recent one before today.
      const back = (new Date(today).getUTCDay() - want + 7) % 7 || 7;
      const day = today - back * DAY;
      return m[1]!.toLowerCase() === "since" ? span(day, today + DAY) : span(day, day + DAY);
    },
  },
  {
    // in March, during March 2025, since March, last March, early March
    re: new RegExp(`\\b(in|during|since|last|early|late) ${MONTH}(?: (\\d{4}))?\\b`, "i"),
    window: (m, today) => {
      const month = monthIndex(m[2]!);
      const t = new Date(today);
      let year = m[3] ? +m[3] : t.getUTCFullYear();
      if (!m[3] && month > t.getUTCMonth()) year--;
      const w = monthSpan(year, month);
      return m[1]!.toLowerCase() === "since" ? span(w.from.getTime(), today + DAY) : w;
    },
  },
];

export function parseDateWords(query: string, now: Date): DateQuery {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  for (const rule of RULES) {
    const m = rule.re.exec(query);
    // "on Monday's list" names a thing, not a time.
    if (!m || /^['’]/.test(query.slice(m.index + m[0].length))) continue;
    const window = rule.window(m, today);
    if (!window) continue;
    const rest = (query.slice(0, m.index) + " " + query.slice(m.index + m[0].length))
      .replace(/\s+/g, " ").replace(/\s+([?.!,])/g, "$1").trim();
    return { rest, window };
  }
  return { rest: query };
}

function span(from: number, to: number): DateWindow {
  return { from: new Date(from), to: new Date(to) };
}

function monthSpan(year: number, month: number): DateWindow {
  return span(Date.UTC(year, month, 1), Date.UTC(year, month + 1, 1));
}

function monthIndex(word: string): number {
  const w = word.toLowerCase().slice(0, 3);
  return MONTHS.findIndex((m) => m.startsWith(w));
}

function count(word: string): number {
  return NUMBERS[word.toLowerCase()] ?? Number(word);
}
