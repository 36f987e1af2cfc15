// Drives `skillhost serve`'s /mcp with the Vercel AI SDK's MCP client (@ai-sdk/mcp, pinned in
// package.json), a client not written here: list, 10 calls at once, an approval through
// elicitation, a tool error, prompts (and completion of a listed one), resources; then it asks the
// test to restart the daemon (prints "restart now", waits for a line on stdin) and goes on in the
// same session: 10 calls at once again and another approval. Everything the client reports as an
// error (say, an event it could not parse) fails the run.
// Usage: node ai_sdk_client.mjs URL TOKEN TAG
import { createMCPClient, ElicitationRequestSchema } from "@ai-sdk/mcp";
import readline from "node:readline";

const [url, token, tag] = process.argv.slice(2);

function check(condition, what) {
  if (!condition) throw new Error("check failed: " + what);
  console.log("ok: " + what);
}

const timer = setTimeout(() => {
  console.error("timed out");
  process.exit(1);
}, 100000);

const reported = [];
const client = await createMCPClient({
  transport: { type: "http", url, headers: { Authorization: `Bearer ${token}` } },
  clientName: "skillhost-ai-sdk-test",
  capabilities: { elicitation: {} },
  onUncaughtError: (error) => reported.push(String(error?.message ?? error)),
});
let elicited = 0;
client.onElicitationRequest(ElicitationRequestSchema, async (request) => {
  elicited += 1;
  check(request.params.message.includes("approval"), "the approval question names the approval");
  return { action: "accept", content: { decision: "approve" } };
});
check(client.serverInfo?.name === "skillhost", "serverInfo.name is skillhost");

const tools = await client.listTools();
const names = tools.tools.map((t) => t.name);
check(names.includes("memory_capture") && names.includes("add"), "tools/list lists memory_capture and add");
const toolSet = await client.tools();
check(typeof toolSet.add?.execute === "function", "the AI SDK turns the listed tools into its own tools");

// The arguments under both names the client has used (`args` up to @ai-sdk/mcp 1.x, `arguments`
// since), so the script runs with either.
const call = (name, args) => client.callTool({ name, arguments: args, args });

async function captureTen(round) {
  const calls = [];
  for (let i = 0; i < 10; i++)
    calls.push(call("memory_capture", { text: `${round} ${i}`, tags: [tag] }));
  const results = await Promise.all(calls);
  check(results.every((r) => !r.isError), `10 calls at once all succeed (${round})`);
}

async function approvedAdd(a, b) {
  const before = elicited;
  const sum = await call("add", { a, b });
  check(elicited === before + 1, "the call that needs approval asked through elicitation");
  check(!sum.isError && sum.structuredContent?.sum === a + b, `the approved call returns {sum: ${a + b}}`);
}

await captureTen("before");
await approvedAdd(19, 23);

const failed = await call("fs_read", { path: "no/such/file.txt" }).catch((e) => e);
check(failed instanceof Error || failed.isError === true, "a failing call is reported as an error");

// Prompts were experimental_ in @ai-sdk/mcp 1.x.
const prompts = await (client.listPrompts ?? client.experimental_listPrompts).call(client);
const example = prompts.prompts.find((p) => p.name.endsWith("_example_1"));
check(example !== undefined, "prompts/list lists the skill examples");
const rendered = await (client.getPrompt ?? client.experimental_getPrompt).call(client, { name: example.name });
check(rendered.messages.length > 0, "prompts/get renders a listed prompt");
const completed = await client.complete({
  ref: { type: "ref/prompt", name: example.name },
  argument: { name: "anything", value: "" },
});
check(Array.isArray(completed.completion?.values), "completion/complete answers for a listed prompt");
const resources = await client.listResources();
check(Array.isArray(resources.resources), "resources/list answers");

console.log("restart now");
const input = readline.createInterface({ input: process.stdin });
await new Promise((resolve) => input.once("line", resolve));
input.close();

await captureTen("after");
await approvedAdd(2, 3);

// What the client reports besides: its probe of a future protocol version (400, then it falls back
// to initialize) and its GET opened before it has a session id (400; it opens it again after).
check(reported.filter((m) => m.includes("parse")).length === 0, "no event failed to parse: " + reported.join(" | "));
console.error("reported by the client: " + reported.join(" | "));
await client.close();
clearTimeout(timer);
console.log("all checks passed");
