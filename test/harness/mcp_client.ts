/**
 * The MCP SDK's own client, for black-box tests: connect to a server over Streamable HTTP or the
 * legacy SSE transport with a bearer token. (See internal/mcp/sdk.ts for why @ts-types.)
 */
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/client/sse"
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { binaryPath } from "./binary.ts";

export { Client, SSEClientTransport, StdioClientTransport, StreamableHTTPClientTransport };

/** `dist/memsvc mcp` as a stdio MCP server for the SDK's client, bridged to `baseUrl`. */
export async function connectStdioBridge(baseUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: "memsvc-test-stdio", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: binaryPath("memsvc"),
      args: ["mcp"],
      env: { MEMSVC_BASE_URL: baseUrl, MEMSVC_TOKEN: token, PATH: process.env.PATH ?? "/usr/bin:/bin" },
      stderr: "pipe",
    }),
  );
  return client;
}

export async function connectHttp(baseUrl: string, bearer: string): Promise<Client> {
  const client = new Client({ name: "memsvc-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${bearer}` } },
  });
  await client.connect(transport);
  return client;
}

export async function connectSse(
  baseUrl: string,
  bearer: string,
): Promise<{ client: Client; transport: SSEClientTransport }> {
  const client = new Client({ name: "memsvc-test-sse", version: "1.0.0" });
  const headers = { authorization: `Bearer ${bearer}` };
  const transport = new SSEClientTransport(new URL(`${baseUrl}/mcp/sse`), {
    requestInit: { headers },
    eventSourceInit: {
      fetch: (url: string | URL | Request, init?: RequestInit) =>
        fetch(url, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), ...headers } }),
    },
  });
  await client.connect(transport);
  return { client, transport };
}
