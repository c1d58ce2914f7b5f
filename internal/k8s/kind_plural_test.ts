import assert from "node:assert/strict";
import { test } from "node:test";
import { kindPlural } from "./kind_plural.ts";

test("the resource's plural decides where it is known, in the kind's case", () => {
  assert.equal(kindPlural("GatewayClass", "gatewayclasses"), "GatewayClasses");
  assert.equal(kindPlural("HTTPRoute", "httproutes"), "HTTPRoutes");
  assert.equal(kindPlural("ProxyPolicy", "proxypolicies"), "ProxyPolicies");
  // A plural that does not extend the kind is not used: the kind is never renamed.
  assert.equal(kindPlural("Endpoints", "endpoints"), "Endpoints");
  assert.equal(kindPlural("Gateway", "gw"), "Gateways");
});

test("English rules without a resource plural", () => {
  assert.deepEqual(
    ["Gateway", "ProxyPolicy", "GatewayClass", "Box", "Patch", "Mesh", "ProxyVIP", "IPPool"].map((k) =>
      kindPlural(k)
    ),
    ["Gateways", "ProxyPolicies", "GatewayClasses", "Boxes", "Patches", "Meshes", "ProxyVIPs", "IPPools"],
  );
});
