/**
 * Request and response schemas of the API-token routes (me_tokens.ts, rotate_token.ts,
 * admin_tokens.ts): the request schemas validate requests and describe them in /openapi.json.
 */
import { z } from "zod";
import { TOKEN_PREFIX } from "./api_tokens.ts";

export const createTokenBody = z.object({
  label: z.string().describe("a name for the token, e.g. the host"),
});

export const tokenHashParam = z.object({
  tokenHash: z.string().regex(/^[0-9a-f]{64}$/, "tokenHash must be 64 lowercase hex characters")
    .describe("SHA-256 hex of the token: its identifier"),
});

export const revokeTokenBody = z.object({
  token: z.string().startsWith(TOKEN_PREFIX, `token must be an API token starting with ${TOKEN_PREFIX}`)
    .describe("the leaked plaintext token"),
});

export const issuedToken = z.object({
  tokenHash: z.string(),
  label: z.string(),
  token: z.string().describe("the plaintext `nm_` token: shown in this answer only"),
}).meta({ id: "IssuedToken" });

export const tokenList = z.object({
  tokens: z.array(z.object({
    tokenHash: z.string(),
    label: z.string(),
    createdAt: z.iso.datetime(),
    lastUsedAt: z.iso.datetime().nullable(),
  })),
});

export const revokedToken = z.object({ revoked: z.literal(true), tokenHash: z.string() });
