import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { connectionTo, rawCall, startDecoy, startTarget } from './v1.proxy.helpers.ts';

/**
 * Targets aimed at `decoy` (a loopback port) or at other hosts, written in every way a URL parser
 * could be talked into: each must be refused with 400 target_not_allowed before any connection.
 */
function craftedTargets(own: { scheme: string; host: string; port: string }, decoy: number): string[] {
  const ownHost = own.port === '' ? own.host : `${own.host}:${own.port}`;
  const d = `127.0.0.1:${decoy}`;
  return [
    // Other hosts and look-alikes.
    `https://evil.example.com/x`,
    `${own.scheme}://${own.host}.evil.example.com/x`,
    `${own.scheme}://evil${own.host}/x`,
    `${own.scheme}://${own.host}./x`,
    `${own.scheme}://${own.host}..:${own.port || '443'}/x`,
    `//${d}/x`,
    `/${'/'}${d}/x`,
    `http:${d}/x`,
    // User-info tricks.
    `${own.scheme}://${ownHost}@${d}/x`,
    `${own.scheme}://user:pw@${ownHost}/x`,
    `${own.scheme}://${ownHost}%40${d}/x`,
    `${own.scheme}://${ownHost}%2540${d}/x`,
    `${own.scheme}://${ownHost}%2f@${d}/x`,
    `${own.scheme}://${ownHost}%252f@${d}/x`,
    `${own.scheme}://${ownHost}%5c@${d}/x`,
    `${own.scheme}://${ownHost}\\@${d}/x`,
    `${own.scheme}:\\\\${d}/x`,
    `${own.scheme}:/\\${d}/x`,
    // IP literals in every notation, localhost, IPv6, IPv4-mapped IPv6.
    `http://${d}/x`,
    `http://2130706433:${decoy}/x`,
    `http://0x7f000001:${decoy}/x`,
    `http://0177.0.0.1:${decoy}/x`,
    `http://0x7f.0.0.1:${decoy}/x`,
    `http://127.1:${decoy}/x`,
    `http://127.0.0.1.:${decoy}/x`,
    `http://[::1]:${decoy}/x`,
    `http://[::ffff:127.0.0.1]:${decoy}/x`,
    `http://[::ffff:7f00:1]:${decoy}/x`,
    `http://[0:0:0:0:0:0:0:1]:${decoy}/x`,
    `http://localhost:${decoy}/x`,
    `http://169.254.169.254/latest/meta-data`,
    // Other ports and schemes on the own host.
    `${own.scheme}://${own.host}:${decoy}/x`,
    `https://${own.host}:8443/x`,
    `${own.scheme === 'https' ? 'http' : 'https'}://${ownHost}/x`,
    `ftp://${ownHost}/x`,
    `file:///etc/passwd`,
    `gopher://${d}/x`,
    // Encoded separators and dot segments climbing out.
    `/crm/v3/..%2f..%2f${d}/x`,
    `/crm/v3/%2e%2e/%2e%2e/x`,
    `/crm/v3/%252e%252e/x`,
    `/crm/v3/../../x`,
    `${own.scheme}://${ownHost}/a/../../x`,
    `${own.scheme}://${ownHost}/./x`,
    `${own.scheme}%3A%2F%2F${d}%2Fx`,
    `${own.scheme}%3A%2F%2F${ownHost}%2F..%2Fx`,
    // Unicode and IDN look-alikes (sent percent-encoded, as an HTTP client must).
    `https://api.hubap%C4%B1.com/x`,
    `https://%EF%BD%81pi.hubapi.com/x`,
    `https://xn--pi-7ia.hubapi.com/x`,
    `${own.scheme}://${ownHost}%E3%80%82evil.com/x`,
  ];
}

for (const provider of ['salesforce', 'hubspot'] as const) {
  test(`${provider}: crafted targets are refused before any connection is made`, async (t) => {
    const s = await startStack(t);
    const decoy = await startDecoy(t);
    const sandbox = provider === 'salesforce' ? s.sf : s.hs;
    const token = s.tokens[provider];
    const own = provider === 'hubspot' ? new URL('https://api.hubapi.com') : new URL(s.sf.url);
    const targets = craftedTargets(
      { scheme: own.protocol.replace(':', ''), host: own.hostname, port: own.port },
      decoy.port,
    );
    assert.ok(targets.length >= 30);
    sandbox.accounting.reset();
    for (const target of targets) {
      for (const method of ['GET', 'POST']) {
        const answer = await rawCall(s.baseUrl, `/v1/proxy/${target}`, {
          method,
          token,
          ...(method === 'POST' ? { body: '{}', headers: { 'content-type': 'application/json' } } : {}),
        });
        assert.equal(answer.status, 400, `${method} ${target}: ${answer.text}`);
        assert.equal(
          (JSON.parse(answer.text) as { error: { code: string } }).error.code,
          'target_not_allowed',
          target,
        );
      }
    }
    assert.equal(decoy.connections(), 0);
    assert.equal(sandbox.accounting.snapshot().total, 0);
    // The own host still works in the same run (so the refusals above are not a broken route).
    const path = provider === 'hubspot' ? '/crm/v3/properties/contacts' : '/services/data/v62.0/limits';
    const ok = await rawCall(s.baseUrl, `/v1/proxy/${own.origin}${path}`, { token });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(decoy.connections(), 0);
  });
}

test('a redirect from the target comes back as it is and is not followed', async (t) => {
  const s = await startStack(t);
  const decoy = await startDecoy(t);
  for (const provider of ['hubspot', 'salesforce'] as const) {
    const target = await startTarget(t, (_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${decoy.port}/steal`, 'content-type': 'text/plain' });
      res.end('moved');
    });
    const token = await connectionTo(s, provider, target.url);
    const sent =
      provider === 'hubspot'
        ? 'https://api.hubapi.com/crm/v3/objects/contacts'
        : `${target.url}/services/data`;
    const answer = await rawCall(s.baseUrl, `/v1/proxy/${sent}`, { token });
    assert.equal(answer.status, 302, answer.text);
    assert.equal(answer.headers.location, `http://127.0.0.1:${decoy.port}/steal`);
    assert.equal(answer.text, 'moved');
    assert.equal(target.seen.length, 1);
  }
  assert.equal(decoy.connections(), 0);
});
