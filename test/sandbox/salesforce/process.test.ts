import assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import { connectTo } from './jsforce-helpers.ts';
import { useSandbox, V } from './rest-helpers.ts';

// Process Rules and Process Approvals (REST API guide). The org has no workflow rules and no
// approval processes (those are metadata), so the lists are empty, a trigger runs nothing and
// succeeds, and an approval request finds nothing to act on.
const { sf, call, reset } = useSandbox();
beforeEach(reset);

const connect = () => connectTo(sf());

const newAccount = async () => {
  const res = await call('POST', `${V}/sobjects/Account`, { Name: 'Process rules' });
  return (res.body as { id: string }).id;
};

test('the process directory names rules and approvals, and the resource list names process', async () => {
  const dir = await call('GET', `${V}/process`);
  assert.equal(dir.status, 200);
  assert.deepEqual(dir.body, { approvals: `${V}/process/approvals`, rules: `${V}/process/rules` });
  const resources = (await call('GET', V)).body as Record<string, string>;
  assert.equal(resources.process, `${V}/process`);
});

test('the rule and approval-process lists are empty maps by object', async () => {
  assert.deepEqual((await call('GET', `${V}/process/rules`)).body, { rules: {} });
  assert.deepEqual((await call('GET', `${V}/process/rules/`)).body, { rules: {} });
  assert.deepEqual((await call('GET', `${V}/process/approvals`)).body, { approvals: {} });
  const conn = connect();
  assert.deepEqual(await conn.process.rule.list(), {});
  assert.deepEqual(await conn.process.approval.list(), {});
});

test('triggering the rules of a record succeeds; an unknown or malformed id is reported', async () => {
  const id = await newAccount();
  const ok = await call('POST', `${V}/process/rules/`, { contextIds: [id] });
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.body, { errors: null, success: true });
  assert.deepEqual(await connect().process.rule.trigger(id), { errors: null, success: true });

  const gone = await call('POST', `${V}/process/rules`, { contextIds: ['001000000000000AAA'] });
  const body = gone.body as { success: boolean; errors: Array<{ statusCode: string }> };
  assert.equal(body.success, false);
  assert.equal(body.errors[0]?.statusCode, 'INVALID_CROSS_REFERENCE_KEY');
  const bad = await call('POST', `${V}/process/rules`, { contextIds: ['nope'] });
  assert.equal((bad.body as { errors: Array<{ statusCode: string }> }).errors[0]?.statusCode, 'MALFORMED_ID');
  const none = await call('POST', `${V}/process/rules`, {});
  assert.equal(none.status, 400);
});

test('an approval request finds no process to submit to and no work item to approve or reject', async () => {
  const id = await newAccount();
  const submit = await call('POST', `${V}/process/approvals`, {
    requests: [{ actionType: 'Submit', contextId: id, comments: 'please' }],
  });
  assert.equal(submit.status, 400);
  assert.deepEqual(submit.body, [
    { errorCode: 'NO_APPLICABLE_PROCESS', message: 'No applicable approval process was found.' },
  ]);
  await assert.rejects(
    async () => {
      await connect().process.approval.submit(id, 'please');
    },
    { name: 'NO_APPLICABLE_PROCESS' },
  );
  const approve = await call('POST', `${V}/process/approvals`, {
    requests: [{ actionType: 'Approve', contextId: '04i000000000000AAA' }],
  });
  assert.equal(approve.status, 400);
  assert.equal((approve.body as Array<{ errorCode: string }>)[0]?.errorCode, 'INVALID_CROSS_REFERENCE_KEY');
});
