// Shutdown: a request in flight when the service closes is answered, with `Connection: close`, so
// its keep-alive socket ends with the answer instead of holding the close open.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { waitFor } from '../helpers/wait.ts';

test('a request in flight at shutdown is answered, with Connection: close', async (t) => {
  const s = await startStack(t);
  s.sf.realism.update({ slowMs: 1_000 });
  s.sf.realism.script([{ kind: 'slow', match: 'rest.query', times: 1 }]);
  const inFlight = s.api('/v1/object/soql', { body: { data: 'SELECT Id FROM Account LIMIT 1' } });
  await waitFor('the query to reach the sandbox', () => s.sf.accounting.count('rest.query') === 1);
  const closed = s.close();
  const answer = await inFlight;
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.equal(answer.headers.get('connection'), 'close');
  await closed;
});
