// The least an HTTP relay for a stdio server costs, the floor for Countersign's `/mcp/<server>` and the
// peers: node:http in front, the SDK's stdio client transport behind, one session per initialize, each
// POSTed request answered on its own POST as one SSE event (what Countersign sends an SDK client), no
// decisions, no log, no checks beyond parsing the body. Not a usable gateway: server-initiated messages
// outside a request are dropped and GET streams are refused (405, which clients accept).
// `node bench/http-floor.mjs <command> [args…]` prints `listening <port>` once it accepts requests.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [command, ...args] = process.argv.slice(2);
const sessions = new Map();

function openSession() {
  const id = randomUUID();
  const upstream = new StdioClientTransport({ command, args, stderr: 'ignore' });
  const waiting = new Map(); // request id → open POST response
  const session = { id, upstream, waiting };
  upstream.onmessage = (m) => {
    const res = m.id !== undefined && !('method' in m) ? waiting.get(m.id) : undefined;
    if (!res) return;
    waiting.delete(m.id);
    res.end(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
  };
  upstream.onclose = () => sessions.delete(id);
  sessions.set(id, session);
  return upstream.start().then(() => session);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function post(req, res) {
  const message = JSON.parse(await readBody(req));
  const sid = req.headers['mcp-session-id'];
  const session = typeof sid === 'string' ? sessions.get(sid) : message.method === 'initialize' ? await openSession() : undefined;
  if (!session) return void res.writeHead(404).end();
  if (message.id === undefined || !('method' in message)) {
    res.writeHead(202, { 'mcp-session-id': session.id }).end();
  } else {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'mcp-session-id': session.id });
    session.waiting.set(message.id, res);
  }
  await session.upstream.send(message);
}

const server = createServer((req, res) => {
  if (req.method === 'POST') {
    post(req, res).catch((err) => {
      if (!res.headersSent) res.writeHead(400);
      res.end(String(err));
    });
  } else if (req.method === 'DELETE') {
    const s = sessions.get(req.headers['mcp-session-id']);
    void s?.upstream.close();
    res.writeHead(s ? 200 : 404).end();
  } else {
    res.writeHead(405, { allow: 'POST, DELETE' }).end();
  }
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`));
const stop = () => {
  for (const s of sessions.values()) void s.upstream.close();
  server.close();
  setTimeout(() => process.exit(0), 200).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
