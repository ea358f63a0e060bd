// Every route, with the names of Object.prototype (`constructor`, `__proto__`, `toString`, …) in
// each path parameter and in the places a body names things (object, field, property, match key,
// id), for both CRMs: a lookup keyed by a client's name must find only what was put there, so the
// answer is a clear 4xx (or a 2xx), never a 5xx from an inherited member reaching a CRM call.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startStack } from '../helpers/stack.ts';
import { routesFromOpenApi } from './routes-from-openapi.ts';

const NAMES = Object.getOwnPropertyNames(Object.prototype);

/** Bodies as raw JSON text, so `__proto__` is a real key (an object literal would set the prototype). */
function bodies(name: string): string[] {
  const n = JSON.stringify(name);
  return [
    `{"data":[{${n}:"x"}]}`,
    `{"data":[{${n}:"x","id":"1"}],"match_key":${n}}`,
    `{"data":{"ids":[${n}],"fields":[${n}]}}`,
    `{"data":"SELECT Id FROM ${name}"}`,
    `{"data":{"name":${n},"label":${n},"type":${n},"fieldType":${n},"groupName":${n},${n}:${n}}}`,
    `{${n}:{${n}:1}}`,
  ];
}

test('Object.prototype names in every path parameter and body place: no 5xx, a JSON error naming the problem', async (t) => {
  const s = await startStack(t);
  const document = (await (await fetch(`${s.baseUrl}/openapi.json`)).json()) as Parameters<
    typeof routesFromOpenApi
  >[0];
  const routes = routesFromOpenApi(document).filter((r) => !r.public);
  assert.ok(routes.length >= 10, `routes from the document: ${routes.length}`);
  const failures: string[] = [];
  let sent = 0;
  for (const token of [s.tokens.salesforce, s.tokens.hubspot]) {
    for (const route of routes) {
      for (const name of NAMES) {
        let path = route.template;
        for (const param of Object.keys(route.params)) {
          path = path.replace(`{${param}}`, encodeURIComponent(param === 'target_url' ? `/${name}` : name));
        }
        const withBody = route.method !== 'GET' && route.method !== 'DELETE';
        for (const body of withBody ? bodies(name) : [undefined]) {
          const answer = await fetch(`${s.baseUrl}${path}`, {
            method: route.method,
            headers: {
              authorization: `Bearer ${token}`,
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            },
            body,
          });
          const text = await answer.text();
          sent++;
          const ours = !route.passThrough && answer.status >= 400;
          const coded = ours ? /"error":\{"code":"[a-z_]+"/.test(text) : true;
          if (answer.status >= 500 || !coded) {
            failures.push(`${route.method} ${path} ${body ?? ''} -> ${answer.status} ${text.slice(0, 160)}`);
          }
        }
      }
    }
  }
  // Routes the document leaves out: the console's assets and the docs page's.
  for (const name of NAMES) {
    for (const prefix of ['/console/assets/', '/docs/']) {
      const answer = await fetch(`${s.baseUrl}${prefix}${encodeURIComponent(name)}`);
      sent++;
      if (answer.status >= 500) failures.push(`GET ${prefix}${name} -> ${answer.status}`);
    }
  }
  t.diagnostic(`${sent} requests over ${routes.length} routes and ${NAMES.length} names`);
  assert.deepEqual(failures, []);
});
