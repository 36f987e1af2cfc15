// Drives `skillhost serve`'s /mcp with the official MCP TypeScript SDK client over Streamable HTTP:
// connect with a bearer token, list tools, call one, approve a call through elicitation, and
// receive notifications/tools/list_changed after a plugin is installed mid-session.
// Usage: node client_http.mjs URL TOKEN PLUGINS_DIR NEW_PLUGIN_DIR
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import fs from "node:fs";
import path from "node:path";

const [url, token, pluginsDir, newPluginDir] = process.argv.slice(2);

function check(condition, what) {
  if (!condition) throw new Error("check failed: " + what);
  console.log("ok: " + what);
}

const timer = setTimeout(() => {
  console.error("timed out");
  process.exit(1);
}, 60000);

const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "skillhost-sdk-http-test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
let elicited = 0;
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  elicited += 1;
  check(request.params.message.includes("approval"), "the approval question names the approval");
  return { action: "accept", content: { decision: "approve" } };
});
let listChanged;
const listChangedSeen = new Promise((resolve) => (listChanged = resolve));
client.setNotificationHandler(ToolListChangedNotificationSchema, () => listChanged());

await client.connect(transport);
check(client.getServerVersion()?.name === "skillhost", "serverInfo.name is skillhost");
check(typeof transport.sessionId === "string" && transport.sessionId.length > 0, "the server assigned a session id");

async function allTools() {
  const names = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    names.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor);
  return names;
}

const before = await allTools();
check(before.includes("add") && before.includes("echo"), "tools/list lists the echo fixture's skills");

const echoed = await client.callTool({ name: "echo", arguments: { text: "over http" } });
check(!echoed.isError && JSON.stringify(echoed.structuredContent).includes("over http"), "tools/call echo returns its text");

const sum = await client.callTool({ name: "add", arguments: { a: 19, b: 23 } });
check(elicited === 1, "the call that needs approval asked through elicitation");
check(!sum.isError && sum.structuredContent?.sum === 42, "the approved call returns structuredContent {sum: 42}");

// The catalog may change only once the client's server stream (GET /mcp) is open, or the
// notification has nowhere to go: wait until the server counts an open event stream.
async function openStreams() {
  const metrics = await (await fetch(new URL("/metrics", url))).text();
  const line = metrics.split("\n").find((l) => l.startsWith("skillhost_event_streams_open "));
  return line ? Number(line.split(" ")[1]) : 0;
}
while ((await openStreams()) < 1) await new Promise((resolve) => setTimeout(resolve, 20));
check(true, "the server stream is open");
const staging = path.join(path.dirname(pluginsDir), "sdk-http-staging");
fs.mkdirSync(staging, { recursive: true });
const files = fs.readdirSync(newPluginDir).filter((f) => fs.statSync(path.join(newPluginDir, f)).isFile());
for (const f of files) fs.copyFileSync(path.join(newPluginDir, f), path.join(staging, f));
for (const f of files.filter((f) => !f.endsWith(".yaml"))) fs.renameSync(path.join(staging, f), path.join(pluginsDir, f));
for (const f of files.filter((f) => f.endsWith(".yaml"))) fs.renameSync(path.join(staging, f), path.join(pluginsDir, f));

await listChangedSeen;
check(true, "notifications/tools/list_changed arrived on the server stream");
const after = await allTools();
check(after.includes("upper"), "the new plugin's tools are listed");

await transport.terminateSession();
await client.close();
clearTimeout(timer);
console.log("all checks passed");
