import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, ERROR_CODES, ERROR_STATUS, toErrorBody } from '../../src/errors/index.ts';

test('every code maps to a 4xx or 5xx status, and the documented statuses are the ones used', () => {
  for (const code of ERROR_CODES) {
    const status = ERROR_STATUS[code];
    assert.ok(status >= 400 && status < 600, `${code} → ${status}`);
  }
  assert.equal(ERROR_STATUS.invalid_json, 400);
  assert.equal(ERROR_STATUS.too_many_records, 400);
  assert.equal(ERROR_STATUS.missing_token, 401);
  assert.equal(ERROR_STATUS.revoked_token, 403);
  assert.equal(ERROR_STATUS.wrong_region, 403);
  assert.equal(ERROR_STATUS.unknown_object, 404);
  assert.equal(ERROR_STATUS.method_not_allowed, 405);
  assert.equal(ERROR_STATUS.body_too_large, 413);
  assert.equal(ERROR_STATUS.unsupported_media_type, 415);
  assert.equal(ERROR_STATUS.operation_not_available, 422);
  assert.equal(ERROR_STATUS.rate_limited, 429);
  assert.equal(ERROR_STATUS.crm_error, 502);
  assert.equal(ERROR_STATUS.connection_needs_reauth, 503);
});

test('an ApiError becomes the documented body with its status', () => {
  const error = new ApiError('too_many_ids', 'At most 100 ids.', { details: [{ limit: 100 }] });
  const { status, body } = toErrorBody(error, 'req_1');
  assert.equal(status, 400);
  assert.deepEqual(body, {
    error: { code: 'too_many_ids', message: 'At most 100 ids.', details: [{ limit: 100 }] },
    request_id: 'req_1',
  });
});

test('anything else is a 500 whose body carries no internal text', () => {
  const { status, body } = toErrorBody(new Error('password=hunter2 at db.ts:42'), 'req_2');
  assert.equal(status, 500);
  assert.equal(body.error.code, 'internal_error');
  assert.doesNotMatch(JSON.stringify(body), /hunter2|db\.ts/);
  assert.deepEqual(body.error.details, []);
});
