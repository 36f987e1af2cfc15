// Drives `skillhost mcp` with the official MCP TypeScript SDK client: connect, list tools, call a
// skill, and receive notifications/tools/list_changed after a plugin is installed mid-session.
// Usage: node client.mjs SERVER_BINARY CONFIG HOME PLUGINS_DIR NEW_PLUGIN_DIR
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import fs from "node:fs";
import path from "node:path";

const [server, config, home, pluginsDir, newPluginDir] = process.argv.slice(2);

function check(condition, what) {
  if (!condition) throw new Error("check failed: " + what);
  console.log("ok: " + what);
}

const transport = new StdioClientTransport({
  command: server,
  args: ["mcp", "--config", config, "--home", home, "--page-size", "4"],
  stderr: "inherit",
});
const client = new Client({ name: "skillhost-sdk-test", version: "1.0.0" });
let listChanged;
const listChangedSeen = new Promise((resolve) => (listChanged = resolve));
client.setNotificationHandler(ToolListChangedNotificationSchema, () => listChanged());

const timer = setTimeout(() => {
  console.error("timed out");
  process.exit(1);
}, 60000);

await client.connect(transport);
check(client.getServerVersion()?.name === "skillhost", "serverInfo.name is skillhost");

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
check(before.includes("add") && before.includes("echo"), "tools/list (paginated) lists the echo fixture's skills");

const sum = await client.callTool({ name: "add", arguments: { a: 19, b: 23 } });
check(!sum.isError && sum.structuredContent?.sum === 42, "tools/call add returns structuredContent {sum: 42}");

const failed = await client.callTool({ name: "fail", arguments: { reason: "sdk" } });
check(failed.isError === true && failed.content[0].text.startsWith("ECHO_FAILED"), "a skill failure is isError with its code");

// Install a plugin the way an installer should: copy next to the directory, then rename in.
const staging = path.join(path.dirname(pluginsDir), "sdk-staging");
fs.mkdirSync(staging, { recursive: true });
const files = fs.readdirSync(newPluginDir).filter((f) => fs.statSync(path.join(newPluginDir, f)).isFile());
for (const f of files) fs.copyFileSync(path.join(newPluginDir, f), path.join(staging, f));
for (const f of files.filter((f) => !f.endsWith(".yaml"))) fs.renameSync(path.join(staging, f), path.join(pluginsDir, f));
for (const f of files.filter((f) => f.endsWith(".yaml"))) fs.renameSync(path.join(staging, f), path.join(pluginsDir, f));

await listChangedSeen;
check(true, "notifications/tools/list_changed arrived after the plugin was installed");
const after = await allTools();
check(after.includes("upper"), "the new plugin's tools are listed");

await client.close();
clearTimeout(timer);
console.log("all checks passed");
