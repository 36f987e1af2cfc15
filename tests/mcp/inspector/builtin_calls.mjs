// Calls every built-in skill through the MCP Inspector's CLI mode, as a user would from a shell:
// one `inspector --cli ... --method tools/call --tool-name X --tool-arg k=v` process per call, each
// starting its own `skillhost mcp`. The Inspector itself rejects a result whose structuredContent
// breaks the tool's outputSchema (exit status != 0); this script checks that again with Ajv, to
// name the field, and checks each result says what the call did.
// Usage: node builtin_calls.mjs LAUNCHER SKILLHOST CONFIG HOME
import Ajv from "ajv";
import { spawnSync } from "node:child_process";

const [launcher, skillhost, config, home] = process.argv.slice(2);
let failures = 0;
const fail = (message) => {
  failures += 1;
  console.log(`FAIL ${message}`);
};

// Runs the Inspector CLI against `skillhost mcp`; the parsed JSON it printed, or null (reported).
function inspector(what, args) {
  const run = spawnSync(
    process.execPath,
    [launcher, "--cli", "-e", `SKILLHOST_CONFIG=${config}`, "-e", `SKILLHOST_HOME=${home}`, skillhost, "mcp", ...args],
    { encoding: "utf8", timeout: 30000 },
  );
  if (run.status !== 0) {
    fail(`${what}: the Inspector exited with ${run.status ?? run.signal}: ${run.stderr}${run.stdout}`);
    return null;
  }
  try {
    return JSON.parse(run.stdout);
  } catch {
    fail(`${what}: the Inspector printed no JSON: ${run.stdout}`);
    return null;
  }
}

// Inspector --tool-arg values: strings as they are, everything else as JSON (the Inspector converts
// each by the tool's inputSchema).
const toolArgs = (args) =>
  Object.entries(args).flatMap(([k, v]) => ["--tool-arg", `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`]);

const state = {};
// Every built-in skill, in an order where each finds what the earlier ones made, with valid
// arguments and what its result must show.
const calls = [
  ["fs_write", () => ({ path: "notes/plan.md", content: "# Plan\nship the inspector test\n", create_dirs: true }),
    (r) => r.bytes_written > 0 && r.created === true],
  ["fs_list", () => ({ path: ".", recursive: true }),
    (r) => r.entries.some((e) => e.path === "notes/plan.md")],
  ["fs_read", () => ({ path: "notes/plan.md" }),
    (r) => r.content.includes("ship the inspector test")],
  ["fs_search", () => ({ text: "inspector" }),
    (r) => r.results.some((e) => e.path === "notes/plan.md")],
  ["memory_capture", () => ({ text: "Inspector CLI review with Dana", kind: "event", tags: ["work"] }),
    (r) => r.captured === true && r.memory.tags[0] === "work"],
  ["memory_search", () => ({ query: "inspector review" }),
    (r) => r.count >= 1 && r.results[0].text.includes("Dana")],
  ["memory_recent", () => ({ kind: "event" }),
    (r) => r.count >= 1 && r.memories[0].text.includes("Inspector")],
  ["task_create", () => ({ title: "Ship the inspector test", priority: "high", due: "2026-12-01", tags: ["work"] }),
    (r) => { state.task = r.task.id; return r.created === true && r.task.priority === "high"; }],
  ["task_list", () => ({ priority: "high" }),
    (r) => r.tasks.some((t) => t.id === state.task)],
  ["task_find", () => ({ query: "inspector" }),
    (r) => r.tasks.some((t) => t.id === state.task)],
  ["task_update", () => ({ id: state.task, status: "done" }),
    (r) => r.task.status === "done" && typeof r.task.completed === "string"],
  ["task_delete", () => ({ id: state.task }),
    (r) => r.deleted === true],
  ["conversational_response",
    () => ({ goal: "What is the plan?", style: "strict",
             observations: [{ tool: "fs_read", args: { path: "notes/plan.md" }, ok: true,
                              data: { content: "ship the inspector test" } }] }),
    (r) => typeof r.answer === "string" && r.answer.length > 0],
];

const listed = inspector("tools/list", ["--method", "tools/list", "--strict"]);
const tools = new Map((listed?.tools ?? []).map((t) => [t.name, t]));
const called = new Set(calls.map(([name]) => name));
for (const name of tools.keys())
  if (!called.has(name)) fail(`${name}: a listed skill this test does not call; add a call for it to builtin_calls.mjs`);
const ajv = new Ajv({ strict: false, allErrors: true });
for (const [name, args, shows] of calls) {
  const tool = tools.get(name);
  if (!tool) {
    fail(`${name}: not in tools/list`);
    continue;
  }
  const given = args();
  const result = inspector(name, ["--method", "tools/call", "--tool-name", name, ...toolArgs(given)]);
  if (!result) continue;
  const text = JSON.stringify(result);
  if (result.isError) {
    fail(`${name}: isError: ${text}`);
    continue;
  }
  const structured = result.structuredContent;
  if (tool.outputSchema) {
    const validate = ajv.compile(tool.outputSchema);
    if (!validate(structured)) {
      fail(`${name}: structuredContent breaks the outputSchema: ${ajv.errorsText(validate.errors)}`);
      continue;
    }
  }
  let ok = false;
  try {
    ok = shows(structured);
  } catch (e) {
    ok = false;
  }
  if (!ok) fail(`${name}: the result does not show what the call did: ${text}`);
  else console.log(`ok ${name}`);
}
if (failures === 0 && tools.size === calls.length) {
  console.log(`all checks passed: ${calls.length} skills called through the MCP Inspector CLI`);
} else {
  console.log(`${failures} failures`);
  process.exit(1);
}
