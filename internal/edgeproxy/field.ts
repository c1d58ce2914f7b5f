/** The value at a dotted path of a decoded JSON object (`spec.serviceRef.port`), or undefined. */
export function field(object: unknown, path: string): unknown {
  let value: unknown = object;
  for (const key of path.split(".")) {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}
