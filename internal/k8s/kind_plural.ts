/**
 * The plural of a kind as people write it in prose and help text: "GatewayClasses", "ProxyPolicies",
 * "Gateways". The resource's plural (a CRD's spec.names.plural, or discovery's name) is the source of
 * truth where it is known: its suffix is kept in the kind's case. Otherwise English rules apply, which
 * kubectl's own guess (kind + "s", "y" → "ies" always) gets wrong for "Gateway".
 *
 * @example
 * kindPlural("GatewayClass", "gatewayclasses") // "GatewayClasses"
 * kindPlural("ProxyPolicy")                    // "ProxyPolicies"
 */
export function kindPlural(kind: string, resource?: string): string {
  if (resource?.toLowerCase().startsWith(kind.toLowerCase())) {
    return kind + resource.slice(kind.length);
  }
  if (/[^aeiou]y$/i.test(kind)) return `${kind.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/i.test(kind)) return `${kind}es`;
  return `${kind}s`;
}
