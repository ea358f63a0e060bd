import { test } from 'node:test';
import { refreshStorm } from './refresh-storm.ts';

test('refresh storm: 1 000 concurrent requests on an expired access token cause exactly one refresh', async (t) => {
  await refreshStorm(t, 1000);
});
