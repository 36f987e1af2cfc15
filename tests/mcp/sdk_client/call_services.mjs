// Drives `skillhost mcp` with the official MCP TypeScript SDK client over the `rich` fixture (run in
// a plugin runner process, the default for a third-party plugin): content items, tool log lines,
// sampling answered by this client, and a skill's elicitation answered by this client.
// Usage: node call_services.mjs SERVER_BINARY CONFIG HOME
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

const [server, config, home] = process.argv.slice(2);

function check(condition, what) {
  if (!condition) throw new Error("check failed: " + what);
  console.log("ok: " + what);
}

const transport = new StdioClientTransport({
  command: server,
  args: ["mcp", "--config", config, "--home", home],
  stderr: "inherit",
});
const client = new Client(
  { name: "skillhost-sdk-call-services", version: "1.0.0" },
  { capabilities: { sampling: {}, elicitation: {} } },
);
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (note) => logs.push(note.params));
let sampled;
client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
  sampled = request.params;
  return { role: "assistant", content: { type: "text", text: "sampled by the SDK" }, model: "sdk-model" };
});
let asked;
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  asked = request.params;
  return { action: "accept", content: { name: "Ada", color: "green", count: 2 } };
});

const timer = setTimeout(() => {
  console.error("timed out");
  process.exit(1);
}, 60000);

await client.connect(transport);

const rich = await client.callTool({ name: "rich_content", arguments: {} });
check(!rich.isError, "rich_content succeeds");
check(
  JSON.stringify(rich.content.map((c) => c.type)) === JSON.stringify(["text", "image", "audio", "resource_link", "resource"]),
  "content items arrive in order: text, image, audio, resource_link, resource",
);
check(rich.content[1].mimeType === "image/png" && rich.content[1].data.startsWith("iVBORw0K"), "the image is base64 PNG");
check(rich.content[4].resource.text === "first note", "the embedded resource carries its text");
check(rich.structuredContent?.items === 5, "structuredContent holds the skill's result (checked by the SDK)");

await client.setLoggingLevel("info");
const logged = await client.callTool({ name: "rich_log", arguments: {} });
check(!logged.isError, "rich_log succeeds");
const lines = logs.filter((l) => l.logger === "rich");
check(lines.some((l) => l.level === "info" && l.data === "starting the work"), "an info line of the tool arrives");
check(lines.some((l) => l.level === "warning"), "a warn line arrives as warning");
check(!lines.some((l) => l.level === "debug"), "debug lines stay below the level");

const sample = await client.callTool({ name: "rich_sample", arguments: { prompt: "Greet me" } });
check(sampled?.messages?.[0]?.content?.text === "Greet me" && sampled.systemPrompt === "Be brief.", "sampling/createMessage carries the plugin's messages");
check(sample.structuredContent?.content === "sampled by the SDK", "the plugin receives the client's completion");
check(sample.structuredContent?.backend === "mcp-client" && sample.structuredContent?.model === "sdk-model", "the answer names the client as its backend");

const elicited = await client.callTool({ name: "rich_elicit", arguments: {} });
check(asked?.message === "Who is asking?" && asked.requestedSchema?.properties?.color?.enum?.length === 2, "elicitation/create carries the skill's form");
check(elicited.structuredContent?.action === "accept" && elicited.structuredContent?.content?.name === "Ada", "the skill receives the accepted form");

await client.close();
clearTimeout(timer);
console.log("all checks passed");
