/** What black-box memsvc tests start `memsvc serve` with. */

/** A cookie secret long enough for user and bearer modes; tests also scan logs for it. */
export const TEST_COOKIE_SECRET = "memsvc-test-cookie-secret-0123456789abcdef0123";

export interface Credentials {
  email: string;
  password: string;
}

/**
 * The environment of a test server: a private HOME (the embedded database lives under it), a port the
 * OS picks (read back from the "listening" log line), JSON logs to parse, the test cookie secret, the
 * first admin when `admin` is given, and `extra` last so a test can override or drop any of them.
 */
export function memsvcEnv(
  home: string,
  options: { admin?: Credentials; extra?: Record<string, string> } = {},
): Record<string, string> {
  return {
    HOME: home,
    MEMSVC_PORT: "0",
    MEMSVC_LOG_FORMAT: "json",
    MEMSVC_COOKIE_SECRET: TEST_COOKIE_SECRET,
    ...(options.admin
      ? {
        MEMSVC_BOOTSTRAP_ADMIN_EMAIL: options.admin.email,
        MEMSVC_BOOTSTRAP_ADMIN_PASSWORD: options.admin.password,
      }
      : {}),
    ...options.extra,
  };
}
