// Sequential MCP `tools/call` round trips over stdio, measured with the official MCP TypeScript SDK
// client (Client + StdioClientTransport), against one or more servers side by side in one run.
//
// Usage:
//   node bench_client.mjs [--calls N] [--warmup W] [--blocks B] [--tool NAME] [--args JSON]
//        [--validate-output] -- NAME COMMAND [ARG...] [--- NAME COMMAND [ARG...]]...
//   --tool, --args     the tool to call and its arguments (default: echo {"text": "hello from the
//                      MCP benchmark"}; the SDK echo server also offers add {"a": 19, "b": 23})
//   --validate-output  list tools with Client.listTools(), so the SDK client checks every result's
//                      structuredContent against the tool's outputSchema (as an application using
//                      the SDK does; every server here passes it). Off by default, so the numbers
//                      measure the servers and not the client's validator: tools/list is then
//                      sent as a plain request and no result is checked against a schema.
// Example (what bench/mcp/run.sh runs):
//   node bench_client.mjs --calls 5000 --warmup 500 \
//        -- skillhost build/release/bin/skillhost mcp --config C --home H \
//        --- sdk node sdk_echo_server.mjs --- floor node floor_server.mjs
//
// Every server is started and connected first (initialize + tools/list; the tool must be listed).
// Each then gets W warm-up calls. The N measured calls per server are split into B blocks, run in
// turn with the order reversed every block (A B C, C B A, A B C, ...) so a change in machine load
// during the run hits every server alike. One call at a time: the next
// request is sent when the previous response has arrived. Every response is checked (not an error,
// the expected text, the same text from every server).
//
// Reported per server: calls/s (measured calls / the wall time of its blocks), latency percentiles
// of single round trips, and the CPU time per call of the server process (all threads and every
// descendant, such as skillhost's plugin runners, from /proc/PID/stat: the process COMMAND started,
// so a wrapper such as strace counts instead) and of this client. The first server is the reference of the ratio line. Last
// line: one JSON object with everything (for scripts).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";

function usage(message) {
  if (message) console.error("bench_client: " + message);
  console.error(
    "usage: node bench_client.mjs [--calls N] [--warmup W] [--blocks B] [--tool NAME] [--args JSON] [--validate-output] " +
      "-- NAME COMMAND [ARG...] [--- NAME COMMAND [ARG...]]...",
  );
  process.exit(2);
}

// ---- arguments ---------------------------------------------------------------------------------
const argv = process.argv.slice(2);
const opts = { calls: 5000, warmup: 500, blocks: 10, tool: "echo", args: '{"text":"hello from the MCP benchmark"}', "validate-output": false };
let i = 0;
for (; i < argv.length && argv[i] !== "--"; i++) {
  const key = argv[i].replace(/^--/, "");
  if (key === "validate-output") {
    opts[key] = true;
    continue;
  }
  if (!(key in opts) || i + 1 >= argv.length) usage("unknown or incomplete option " + argv[i]);
  const value = argv[++i];
  if (key === "tool" || key === "args") opts[key] = value;
  else {
    opts[key] = Number.parseInt(value, 10);
    if (!Number.isFinite(opts[key]) || opts[key] < (key === "blocks" ? 1 : 0)) usage(`bad --${key} ${value}`);
  }
}
const servers = [];
for (let group = [], rest = argv.slice(i + 1), j = 0; j <= rest.length; j++) {
  if (j < rest.length && rest[j] !== "---") {
    group.push(rest[j]);
    continue;
  }
  if (group.length < 2) usage("each server needs a NAME and a COMMAND");
  servers.push({ name: group[0], command: group[1], args: group.slice(2) });
  group = [];
}
if (servers.length === 0) usage("no server given after --");
opts.blocks = Math.min(opts.blocks, Math.max(1, opts.calls));

// ---- helpers -----------------------------------------------------------------------------------
let clockTicks = 100;
try {
  clockTicks = Number.parseInt(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }), 10) || 100;
} catch {}

// CPU time of one process (every thread, and its reaped children), in clock ticks; null if gone.
function ownTicks(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  } catch {
    return null;
  }
}

// The process's living children (e.g. skillhost's plugin runners), from every thread's list.
function childrenOf(pid) {
  const out = [];
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const text = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim();
      if (text) out.push(...text.split(" ").map(Number));
    }
  } catch {}
  return out;
}

// CPU time of the server in microseconds (null when /proc is unavailable): the process and every
// descendant, living or reaped, since plugin runners are part of the server.
function processCpuUs(pid) {
  const root = ownTicks(pid);
  if (root === null) return null;
  let ticks = root;
  const pending = childrenOf(pid);
  for (let seen = 0; pending.length > 0 && seen < 256; ++seen) {
    const child = pending.pop();
    ticks += ownTicks(child) ?? 0;
    pending.push(...childrenOf(child));
  }
  return (ticks * 1e6) / clockTicks;
}

function clientCpuUs() {
  const u = process.cpuUsage();
  return u.user + u.system;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

let args;
try {
  args = JSON.parse(opts.args);
} catch (e) {
  usage(`--args is not JSON: ${e.message}`);
}
const stderrTail = new Map();

async function start(server) {
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: { ...process.env },
    stderr: "pipe",
  });
  let tail = "";
  transport.stderr?.on("data", (chunk) => {
    tail = (tail + chunk.toString()).slice(-4000);
    stderrTail.set(server.name, tail);
  });
  const client = new Client({ name: "skillhost-mcp-bench", version: "1.0.0" });
  const t0 = process.hrtime.bigint();
  await client.connect(transport);
  const connectMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const tools = [];
  let cursor;
  do {
    const params = cursor ? { cursor } : {};
    const page = opts["validate-output"]
      ? await client.listTools(params)
      : await client.request({ method: "tools/list", params }, ListToolsResultSchema);
    tools.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor);
  if (!tools.includes(opts.tool)) throw new Error(`${server.name} offers no tool '${opts.tool}' (it lists: ${tools.join(", ")})`);
  const version = client.getServerVersion();
  return { ...server, client, transport, connectMs, serverInfo: `${version?.name} ${version?.version}`, latencies: [], wallNs: 0n, serverCpuUs: 0, clientCpuUs: 0 };
}

async function callOnce(s) {
  const result = await s.client.callTool({ name: opts.tool, arguments: args });
  const text = result.content?.[0]?.text;
  if (result.isError || typeof text !== "string") throw new Error(`${s.name}: ${opts.tool} failed: ${JSON.stringify(result)}`);
  return text;
}

async function measuredBlock(s, calls) {
  const lat = s.latencies;
  const cpu0 = processCpuUs(s.transport.pid);
  const ccpu0 = clientCpuUs();
  const start = process.hrtime.bigint();
  for (let k = 0; k < calls; k++) {
    const t0 = process.hrtime.bigint();
    const text = await callOnce(s);
    const t1 = process.hrtime.bigint();
    if (text !== s.expected) throw new Error(`${s.name}: unexpected result ${text}`);
    lat.push(Number(t1 - t0) / 1000);
  }
  s.wallNs += process.hrtime.bigint() - start;
  s.clientCpuUs += clientCpuUs() - ccpu0;
  const cpu1 = processCpuUs(s.transport.pid);
  s.serverCpuUs = cpu0 === null || cpu1 === null || s.serverCpuUs === null ? null : s.serverCpuUs + (cpu1 - cpu0);
}

// ---- run ---------------------------------------------------------------------------------------
const started = [];
const watchdog = setTimeout(() => {
  console.error("bench_client: timed out after 30 minutes");
  process.exit(1);
}, 30 * 60 * 1000);

try {
  for (const server of servers) started.push(await start(server));

  // One call each: every server must give the same answer.
  for (const s of started) s.expected = await callOnce(s);
  for (const s of started)
    if (s.expected !== started[0].expected)
      throw new Error(`${s.name} answers ${s.expected}, but ${started[0].name} answers ${started[0].expected}`);

  for (const s of started) for (let k = 0; k < opts.warmup; k++) await callOnce(s);

  const base = Math.floor(opts.calls / opts.blocks);
  for (let b = 0; b < opts.blocks; b++) {
    const calls = base + (b < opts.calls % opts.blocks ? 1 : 0);
    const order = b % 2 === 0 ? started : [...started].reverse();
    for (const s of order) await measuredBlock(s, calls);
  }

  const rows = started.map((s) => {
    const sorted = Float64Array.from(s.latencies).sort();
    const wallS = Number(s.wallNs) / 1e9;
    const n = s.latencies.length;
    return {
      name: s.name,
      server: s.serverInfo,
      calls: n,
      calls_per_s: n / wallS,
      mean_us: (wallS * 1e6) / n,
      p50_us: percentile(sorted, 50),
      p90_us: percentile(sorted, 90),
      p99_us: percentile(sorted, 99),
      max_us: sorted[sorted.length - 1],
      server_cpu_us_per_call: s.serverCpuUs === null ? null : s.serverCpuUs / n,
      client_cpu_us_per_call: s.clientCpuUs / n,
      connect_ms: s.connectMs,
    };
  });

  const f = (v, d = 0) => (v === null || Number.isNaN(v) ? "-" : v.toFixed(d));
  const header = ["server", "calls", "calls/s", "p50 µs", "p90 µs", "p99 µs", "max µs", "server CPU µs/call", "client CPU µs/call", "connect ms"];
  const table = rows.map((r) => [r.name, String(r.calls), f(r.calls_per_s), f(r.p50_us), f(r.p90_us), f(r.p99_us), f(r.max_us),
    f(r.server_cpu_us_per_call), f(r.client_cpu_us_per_call), f(r.connect_ms, 1)]);
  const widths = header.map((h, c) => Math.max(h.length, ...table.map((row) => row[c].length)));
  const line = (cells) => "| " + cells.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join(" | ") + " |";
  console.log(`MCP tools/call ${opts.tool} ${JSON.stringify(args)} over stdio, sequential, ${opts.calls} calls per server in ${opts.blocks} alternating blocks ` +
    `after ${opts.warmup} warm-up calls${opts["validate-output"] ? ", results checked against outputSchema" : ""}; node ${process.version}, ${os.cpus().length} CPUs, load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`);
  console.log(`result text: ${started[0].expected}`);
  console.log(line(header));
  console.log("|" + widths.map((w, c) => (c === 0 ? "-".repeat(w + 2) : "-".repeat(w + 1) + ":")).join("|") + "|");
  for (const row of table) console.log(line(row));
  const ratios = {};
  for (const r of rows.slice(1)) {
    const ratio = rows[0].calls_per_s / r.calls_per_s;
    ratios[`${rows[0].name}/${r.name}`] = ratio;
    console.log(`${rows[0].name}/${r.name}: calls/s ${ratio.toFixed(2)}x; latency p50 ${f(rows[0].p50_us)} vs ${f(r.p50_us)} µs, ` +
      `p99 ${f(rows[0].p99_us)} vs ${f(r.p99_us)} µs; server CPU per call ${f(rows[0].server_cpu_us_per_call)} vs ${f(r.server_cpu_us_per_call)} µs`);
  }
  // Server CPU per call as a multiple of the native floor's (issue 36's targets are stated so).
  const floorRow = rows.find((r) => r.name === "native-floor");
  const cpuRatios = {};
  if (floorRow && floorRow.server_cpu_us_per_call) {
    for (const r of rows) {
      if (r === floorRow || r.server_cpu_us_per_call === null) continue;
      cpuRatios[r.name] = r.server_cpu_us_per_call / floorRow.server_cpu_us_per_call;
    }
    console.log("server CPU per call / native-floor's: " +
      Object.entries(cpuRatios).map(([name, ratio]) => `${name} ${ratio.toFixed(2)}x`).join(", "));
  }
  console.log(JSON.stringify({
    bench: "mcp_stdio_tools_call",
    tool: opts.tool,
    args,
    validate_output: opts["validate-output"],
    calls: opts.calls,
    warmup: opts.warmup,
    blocks: opts.blocks,
    node: process.version,
    cpus: os.cpus().length,
    loadavg: os.loadavg(),
    servers: rows,
    calls_per_s_ratio: ratios,
    server_cpu_ratio_to_native_floor: cpuRatios,
  }));
} catch (e) {
  console.error("bench_client: " + (e?.stack ?? e));
  for (const [name, tail] of stderrTail) if (tail) console.error(`--- stderr of ${name} (last lines) ---\n${tail}`);
  process.exitCode = 1;
} finally {
  for (const s of started) await s.client.close().catch(() => {});
  clearTimeout(watchdog);
}
