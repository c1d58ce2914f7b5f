/**
 * Dates formatted with moment.js tokens, the syntax Obsidian's daily notes and templates use
 * (`YYYY-MM-DD`, `dddd, MMMM Do YYYY`, `YYYY/MM/YYYY-MM-DD` for folders per month, `[week] WW`),
 * in a given IANA time zone. Text in `[...]` is literal. Names are English.
 */

const TOKENS =
  /\[([^\]]*)\]|YYYY|YY|Q|MMMM|MMM|MM|M|DDDD|DDD|Do|DD|D|dddd|ddd|dd|d|E|WW|W|HH|H|hh|h|mm|m|ss|s|SSS|A|a|X|x|ZZ|Z/g;

const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

interface Parts {
  year: number;
  month: number; // 1-12
  day: number;
  weekday: number; // 0 = Sunday
  hour: number;
  minute: number;
  second: number;
  offsetMinutes: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Throws RangeError for an unknown time zone. */
function partsIn(date: Date, timeZone: string): Parts {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(date)) if (part.type !== "literal") p[part.type] = Number(part.value);
  const asUtc = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
  const wholeSeconds = Math.floor(date.getTime() / 1000) * 1000;
  return {
    year: p.year!,
    month: p.month!,
    day: p.day!,
    weekday: new Date(Date.UTC(p.year!, p.month! - 1, p.day!)).getUTCDay(),
    hour: p.hour!,
    minute: p.minute!,
    second: p.second!,
    offsetMinutes: Math.round((asUtc - wholeSeconds) / 60000),
  };
}

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, "0");

function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] ?? "th";
  return `${n}${s}`;
}

function dayOfYear(p: Parts): number {
  return (Date.UTC(p.year, p.month - 1, p.day) - Date.UTC(p.year, 0, 1)) / 86400000 + 1;
}

function isoWeek(p: Parts): number {
  const d = new Date(Date.UTC(p.year, p.month - 1, p.day));
  const day = d.getUTCDay() || 7;
  d.setUTCDate(d.getUTCDate() + 4 - day);
  const yearStart = Date.UTC(d.getUTCFullYear(), 0, 1);
  return Math.ceil(((d.getTime() - yearStart) / 86400000 + 1) / 7);
}

function offset(p: Parts, sep: string): string {
  const m = p.offsetMinutes;
  return `${m < 0 ? "-" : "+"}${pad(Math.floor(Math.abs(m) / 60))}${sep}${pad(Math.abs(m) % 60)}`;
}

export function formatDate(date: Date, format: string, timeZone = "UTC"): string {
  const p = partsIn(date, timeZone);
  return format.replace(TOKENS, (tok, literal: string | undefined) => {
    if (literal !== undefined) return literal;
    switch (tok) {
      case "YYYY":
        return String(p.year).padStart(4, "0");
      case "YY":
        return pad(p.year % 100);
      case "Q":
        return String(Math.ceil(p.month / 3));
      case "MMMM":
        return MONTHS[p.month - 1]!;
      case "MMM":
        return MONTHS[p.month - 1]!.slice(0, 3);
      case "MM":
        return pad(p.month);
      case "M":
        return String(p.month);
      case "DDDD":
        return pad(dayOfYear(p), 3);
      case "DDD":
        return String(dayOfYear(p));
      case "Do":
        return ordinal(p.day);
      case "DD":
        return pad(p.day);
      case "D":
        return String(p.day);
      case "dddd":
        return DAYS[p.weekday]!;
      case "ddd":
        return DAYS[p.weekday]!.slice(0, 3);
      case "dd":
        return DAYS[p.weekday]!.slice(0, 2);
      case "d":
        return String(p.weekday);
      case "E":
        return String(p.weekday || 7);
      case "WW":
        return pad(isoWeek(p));
      case "W":
        return String(isoWeek(p));
      case "HH":
        return pad(p.hour);
      case "H":
        return String(p.hour);
      case "hh":
        return pad(p.hour % 12 || 12);
      case "h":
        return String(p.hour % 12 || 12);
      case "mm":
        return pad(p.minute);
      case "m":
        return String(p.minute);
      case "ss":
        return pad(p.second);
      case "s":
        return String(p.second);
      case "SSS":
        return pad(date.getUTCMilliseconds(), 3);
      case "A":
        return p.hour < 12 ? "AM" : "PM";
      case "a":
        return p.hour < 12 ? "am" : "pm";
      case "X":
        return String(Math.floor(date.getTime() / 1000));
      case "x":
        return String(date.getTime());
      case "ZZ":
        return offset(p, "");
      case "Z":
        return offset(p, ":");
      default:
        return tok;
    }
  });
}

/** True when `timeZone` is an IANA zone this runtime knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return true;
  } catch {
    return false;
  }
}
