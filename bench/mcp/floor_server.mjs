// The floor for bench/mcp: answers initialize, tools/list and tools/call (echo, add) over stdio
// with plain node (readline + JSON) and no MCP server library: no schema validation, no
// capability bookkeeping. What the benchmark client and the pipes cost by themselves shows as this
// row; no server measured with the same client can be much faster.
// Usage: node floor_server.mjs
import readline from "node:readline";

const tools = [
  { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
  { name: "add", inputSchema: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["a", "b"] } },
];

function call({ name, arguments: args = {} }) {
  const result = name === "add" ? { sum: args.a + args.b } : { echo: { text: args.text, repeat: args.repeat ?? 1, mode: args.mode ?? "plain" } };
  return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result, isError: false };
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;  // notifications
  let result = {};
  if (message.method === "initialize")
    result = { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "floor", version: "1.0.0" } };
  else if (message.method === "tools/list") result = { tools };
  else if (message.method === "tools/call") result = call(message.params);
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }) + "\n");
});
