// What the benchmarks' helper servers share (the trivial upstream, the lean forwarder): listen on a
// free loopback port, print one JSON line {url} for the parent, and stop when the parent closes stdin.
import type { Server } from 'node:http';

export function serveForParent(server: Server, onStop: () => void = () => {}): void {
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
  });
  process.stdin.resume();
  process.stdin.on('end', () => {
    server.close();
    server.closeAllConnections();
    onStop();
  });
}
