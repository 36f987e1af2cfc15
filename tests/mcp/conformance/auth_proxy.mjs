// A loopback HTTP proxy that adds `Authorization: Bearer TOKEN` to every request and forwards it to
// the daemon's /mcp unchanged otherwise (Host and Origin included, so the daemon's DNS-rebinding
// checks see what the suite sent); answers stream back as they arrive. The conformance suite's
// client has no option for a bearer token, hence this proxy.
// Usage: node auth_proxy.mjs UPSTREAM_PORT TOKEN   (prints the port it listens on, then serves)
import http from 'node:http';

const [upstreamPort, token] = process.argv.slice(2);
if (!upstreamPort || !token) {
  console.error('usage: auth_proxy.mjs UPSTREAM_PORT TOKEN');
  process.exit(2);
}

const server = http.createServer((req, res) => {
  const headers = { ...req.headers, authorization: `Bearer ${token}` };
  const upstream = http.request(
    { host: '127.0.0.1', port: Number(upstreamPort), method: req.method, path: req.url, headers },
    (answer) => {
      res.writeHead(answer.statusCode, answer.headers);
      answer.pipe(res);
    });
  upstream.on('error', (err) => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`proxy: ${err.message}`);
  });
  // A client that closes its event stream closes the daemon's too.
  res.on('close', () => upstream.destroy());
  req.pipe(upstream);
});
server.listen(0, '127.0.0.1', () => {
  console.log(server.address().port);
});
