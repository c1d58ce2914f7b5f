/**
 * Note templates, Obsidian's core-template variables: `{{title}}`, `{{date}}` (YYYY-MM-DD),
 * `{{time}}` (HH:mm), and a format after a colon, `{{date:dddd D MMMM}}`, `{{time:HH:mm:ss}}`
 * (moment tokens, see date_format.ts). Spaces inside the braces are allowed; unknown variables are
 * left as written so a template can carry text for other tools.
 */
import { formatDate } from "./date_format.ts";

export interface TemplateVars {
  title: string;
  /** The moment the note is made (default: now). */
  now?: Date;
  /** IANA time zone for `date` and `time` (default UTC). */
  timeZone?: string;
}

const VARIABLE = /\{\{\s*(title|date|time)\s*(?::([^}]*?))?\s*\}\}/gi;

export function renderTemplate(template: string, vars: TemplateVars): string {
  const now = vars.now ?? new Date();
  const tz = vars.timeZone ?? "UTC";
  return template.replace(VARIABLE, (_all, name: string, format: string | undefined) => {
    switch (name.toLowerCase()) {
      case "title":
        return vars.title;
      case "date":
        return formatDate(now, format?.trim() || "YYYY-MM-DD", tz);
      default:
        return formatDate(now, format?.trim() || "HH:mm", tz);
    }
  });
}
