// A trivial CRM for the pass-through benchmark, in its own process: GET answers the same 1 KB of
// JSON, any other method reads the whole body and answers with its size. Keeping the upstream
// this cheap puts the cost of whatever sits in front of it in plain view.
// GET /bench/connections-opened answers how many connections it has accepted (keep-alive at work).
// Prints one JSON line {url}; stops when stdin closes.
import { createServer } from 'node:http';
import { serveForParent } from './child-server.ts';

const record = JSON.stringify({
  attributes: { type: 'Account', url: '/services/data/v62.0/sobjects/Account/001000000000001AAA' },
  Id: '001000000000001AAA',
  Name: 'Bench',
  Description: 'x'.repeat(860),
});
const recordBytes = Buffer.from(record);

let connectionsOpened = 0;
const server = createServer((req, res) => {
  if (req.url === '/bench/connections-opened') {
    res.end(String(connectionsOpened));
    return;
  }
  if (req.method === 'GET') {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': recordBytes.length });
    res.end(recordBytes);
    return;
  }
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
  });
  req.on('end', () => {
    const body = `{"received":${size}}`;
    res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.on('connection', () => connectionsOpened++);
serveForParent(server);
