// Serves MCP over Streamable HTTP on loopback and runs one `skillhost mcp` per MCP session, passing
// messages between the two, so the conformance suite (which speaks only HTTP) can test the stdio
// server. HTTP itself is the official TypeScript SDK's server transport: what the suite checks of
// the transport (sessions, streams, Host) is the SDK's, every MCP message is skillhost's.
// Usage: node stdio_bridge.mjs SKILLHOST ARGS...   (prints the port it listens on, then serves)
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: stdio_bridge.mjs SKILLHOST ARGS...');
  process.exit(2);
}
const sessions = new Map();
let port = 0;

function openSession() {
  const child = new StdioClientTransport({ command, args, stderr: 'inherit' });
  const front = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => sessions.set(id, entry),
  });
  // Messages from the server that are not responses belong to a request in flight (progress by its
  // token, anything else to the latest), so they travel on that request's stream.
  const inFlight = new Map(); // request id -> progress token
  const entry = { child, front };
  front.onmessage = (message) => {
    if (message.method && message.id !== undefined)
      inFlight.set(message.id, message.params?._meta?.progressToken);
    child.send(message).catch((err) => console.error(`bridge: ${err}`));
  };
  child.onmessage = (message) => {
    let related;
    if (message.id !== undefined && !message.method) {
      inFlight.delete(message.id);
    } else {
      const token = message.params?.progressToken;
      for (const [id, t] of inFlight) if (token === undefined || t === token) related = id;
    }
    front.send(message, related === undefined ? undefined : { relatedRequestId: related })
      .catch((err) => console.error(`bridge: ${err}`));
  };
  front.onclose = () => {
    if (front.sessionId) sessions.delete(front.sessionId);
    child.close();
  };
  child.onclose = () => front.close();
  return entry;
}

// stdio has no Host or Origin: the bridge refuses foreign ones itself, as the daemon does.
function loopback(value) {
  if (value === undefined) return true;
  try {
    const host = new URL(value.includes('://') ? value : `http://${value}`).hostname;
    return host === 'localhost' || host === '127.0.0.1' || host === '[::1]';
  } catch {
    return false;
  }
}

const server = http.createServer(async (req, res) => {
  if (!loopback(req.headers.host) || !loopback(req.headers.origin)) {
    res.writeHead(403, { 'content-type': 'text/plain' });
    res.end('Host or Origin is not this machine');
    return;
  }
  const id = req.headers['mcp-session-id'];
  let entry = id ? sessions.get(id) : undefined;
  if (!entry) {
    if (id || req.method !== 'POST') {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'no such session' } }));
      return;
    }
    entry = openSession();
    await entry.child.start();
  }
  await entry.front.handleRequest(req, res);
});
server.listen(0, '127.0.0.1', () => {
  port = server.address().port;
  console.log(port);
});
