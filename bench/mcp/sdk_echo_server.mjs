// The comparison server for bench/mcp: one `echo` tool served by the official MCP TypeScript SDK
// (McpServer + StdioServerTransport), shaped like the `echo` skill of skillhost's echo test fixture
// (tests/fixtures/echo/echo.yaml.in) so both servers do the same work per call:
//   - inputs {text: string (required), repeat: integer 1..5 (default 1), mode: "plain"|"loud"
//     (default "plain")}, validated and defaulted (zod here, the manifest schema in skillhost);
//   - result {echo: <the arguments as received, defaults applied>}, returned as
//     content [{type: "text", text: <result as compact JSON>}] plus structuredContent, checked
//     against outputSchema {echo: object} (skillhost declares the same output schema).
// It also offers `add` like the fixture's (inputs {a, b: integer}, result {sum}), for
// `bench_client.mjs --tool add --args '{"a":19,"b":23}'`.
// Usage: node sdk_echo_server.mjs   (speaks MCP on stdin/stdout; run it from a directory whose
// node_modules holds @modelcontextprotocol/sdk, as bench/mcp/run.sh does)
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "sdk-echo", version: "1.0.0" });

server.registerTool(
  "echo",
  {
    title: "Echo",
    description: 'Returns its arguments unchanged under "echo".',
    inputSchema: {
      text: z.string().describe("Text to echo back."),
      repeat: z.number().int().min(1).max(5).default(1).describe("How often the caller would like the text repeated (echoed as given)."),
      mode: z.enum(["plain", "loud"]).default("plain").describe("Echo style (echoed as given)."),
    },
    outputSchema: { echo: z.object({}).passthrough().describe("The arguments as the skill received them.") },
    annotations: { readOnlyHint: true, idempotentHint: true },
  },
  async (args) => {
    const result = { echo: args };
    return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
  },
);

server.registerTool(
  "add",
  {
    title: "Add two integers",
    description: "Returns the sum of a and b.",
    inputSchema: { a: z.number().int().describe("First addend."), b: z.number().int().describe("Second addend.") },
    outputSchema: { sum: z.number().int().describe("a + b.") },
    annotations: { readOnlyHint: true, idempotentHint: true },
  },
  async ({ a, b }) => {
    const result = { sum: a + b };
    return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
  },
);

await server.connect(new StdioServerTransport());
