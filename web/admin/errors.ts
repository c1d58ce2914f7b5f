/**
 * The sentence a person reads for a failed API call (the error type is the apps' shared ApiError,
 * web/shared/api_error.ts). No DOM here, so it is testable anywhere.
 */
import { ApiError } from "../shared/api_error.ts";

export { ApiError };

const CODES: Record<string, string> = {
  LAST_ADMIN_PROTECTED: "You can't remove, demote or ban the last admin. Make another user an admin first.",
  INVALID_EMAIL_OR_PASSWORD: "That email and password don't match an account.",
  BANNED_USER: "This account is banned. Ask an admin to unban it.",
  USER_ALREADY_EXISTS: "A user with this email already exists.",
  USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL: "A user with this email already exists.",
  PASSWORD_TOO_SHORT: "The password is too short.",
  PASSWORD_TOO_LONG: "The password is too long.",
  INVALID_EMAIL: "That doesn't look like an email address.",
  YOU_CANNOT_BAN_YOURSELF: "You can't ban yourself.",
  YOU_CANNOT_REMOVE_YOURSELF: "You can't remove yourself.",
};

function sentence(s: string): string {
  const t = s.trim();
  if (!t) return t;
  const first = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

/** A message for people: what went wrong and, where it helps, what to do. */
export function friendlyMessage(err: unknown): string {
  if (!(err instanceof ApiError)) {
    return err instanceof Error ? sentence(err.message) : "Something went wrong.";
  }
  if (err.code && CODES[err.code]) return CODES[err.code]!;
  switch (err.status) {
    case 0:
      return "Can't reach memsvc. Check that the server is running and try again.";
    case 400:
      if (err.issues.length) {
        return err.issues.map((i) =>
          sentence(i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message)
        ).join(" ");
      }
      return sentence(err.message);
    case 401:
      return "Your session has ended. Please sign in again.";
    case 403:
      return err.message && err.message !== "Forbidden"
        ? sentence(err.message)
        : "You don't have permission to do that.";
    case 404:
      return sentence(err.message === "not found" ? "That no longer exists" : err.message);
    case 413:
      return "That is too large to save.";
    case 429:
      return "Too many attempts. Wait a few minutes and try again.";
    default:
      if (err.status >= 500) {
        return `Something went wrong on the server. Try again; if it keeps happening, ask an admin to check the log${
          err.requestId ? ` (request ${err.requestId})` : ""
        }.`;
      }
      return sentence(err.message);
  }
}
