/**
 * Project ids: `p_` + 16 lowercase base32 characters (80 random bits). User ids starting with `p_`
 * are refused at user creation, so a project id never collides with a user id.
 */
export const PROJECT_ID_PREFIX = "p_";
const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

export function generateProjectId(): string {
  // 32 divides 256, so taking each CSPRNG byte modulo 32 keeps every character equally likely.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return PROJECT_ID_PREFIX + Array.from(bytes, (b) => BASE32.charAt(b % 32)).join("");
}
