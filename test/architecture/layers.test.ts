import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { ALLOWED, importCycles, importsOf, layerOf, SRC, sourceFiles } from './layers.ts';
import { forbiddenMembers, forbiddenReaches } from './reaches.ts';

test('each layer imports only the layers below it (docs/architecture.md)', () => {
  const broken: string[] = [];
  for (const file of sourceFiles()) {
    const from = layerOf(file);
    const allowed = ALLOWED[from === 'crm-profile' ? 'crm' : from];
    if (allowed === undefined) continue; // the composition root and the CLI may import anything
    for (const { target, typeOnly } of importsOf(file)) {
      if (!target.startsWith(SRC)) {
        broken.push(`${relative(SRC, file)} reaches outside src/: ${relative(SRC, target)}`);
        continue;
      }
      const to = layerOf(target);
      const sameCrm =
        (from === 'crm' || from === 'crm-profile') && (to === 'crm' || to === 'crm-profile')
          ? relative(SRC, file).split('/')[1] === relative(SRC, target).split('/')[1]
          : false;
      const ok =
        to === from ||
        sameCrm ||
        allowed.includes(to) ||
        (to === 'crm-profile' && allowed.includes('crm')) ||
        (to === 'config-settings' && allowed.includes('config')) ||
        (to === 'root' && typeOnly && allowed.includes('root-types'));
      if (!ok) broken.push(`${relative(SRC, file)} (${from}) imports ${relative(SRC, target)} (${to})`);
    }
  }
  assert.deepEqual(broken, []);
});

test('the store imports nothing from providers, operations, connections or http', () => {
  for (const file of sourceFiles(join(SRC, 'store'))) {
    for (const { target } of importsOf(file)) {
      assert.match(
        layerOf(target),
        /^(store|domain|lib|errors)$/,
        `${relative(SRC, file)} → ${relative(SRC, target)}`,
      );
    }
  }
});

/**
 * Lines of a file that are documentation text of the API (OpenAPI descriptions): a
 * `description:` property, or a string that continues one on the next line.
 */
function apiDocumentationLines(lines: string[]): Set<number> {
  const doc = new Set<number>();
  lines.forEach((line, i) => {
    if (/\bdescription:/.test(line)) doc.add(i);
    else if (/^\s*['"`]/.test(line) && /\bdescription:\s*$/.test(lines[i - 1] ?? '')) doc.add(i);
  });
  return doc;
}

test('operations and the HTTP layer name no CRM outside the API documentation', () => {
  const found: string[] = [];
  for (const dir of ['operations', 'http']) {
    for (const file of sourceFiles(join(SRC, dir))) {
      const lines = readFileSync(file, 'utf8').split('\n');
      const doc = apiDocumentationLines(lines);
      lines.forEach((line, i) => {
        if (/salesforce|hubspot/i.test(line) && !doc.has(i))
          found.push(`${relative(SRC, file)}:${i + 1}: ${line.trim()}`);
      });
    }
  }
  assert.deepEqual(found, []);
});

test('the configuration and the providers import each other in no cycle (each CRM declares its own settings)', () => {
  // The config, and the provider contract and registry (a CRM folder's own cycles are its business).
  const guarded = (file: string) => /^config\/|^providers\/[^/]+\.ts$/.test(relative(SRC, file));
  const touching = importCycles()
    .filter((cycle) => cycle.some(guarded))
    .map((cycle) => cycle.map((file) => relative(SRC, file)).sort());
  assert.deepEqual(touching, []);
  // The Config names no CRM: it imports the registry list only, and no provider file reads the Config.
  for (const file of sourceFiles(join(SRC, 'config'))) {
    for (const { target } of importsOf(file)) {
      const to = relative(SRC, target);
      if (to.startsWith('providers/')) assert.equal(to, 'providers/index.ts', relative(SRC, file));
    }
  }
  for (const file of sourceFiles(join(SRC, 'providers'))) {
    for (const { target } of importsOf(file)) {
      assert.notEqual(relative(SRC, target), 'config/index.ts', relative(SRC, file));
    }
  }
});

test('no CRM folder imports another', () => {
  for (const file of sourceFiles(join(SRC, 'providers'))) {
    if (layerOf(file) !== 'crm' && layerOf(file) !== 'crm-profile') continue;
    const own = relative(SRC, file).split('/')[1];
    for (const { target } of importsOf(file)) {
      const to = layerOf(target);
      if (to === 'crm' || to === 'crm-profile')
        assert.equal(relative(SRC, target).split('/')[1], own, relative(SRC, file));
    }
  }
});

test('the HTTP layer calls no service of a layer it may not import (a route gets the narrow services it uses)', () => {
  const forbidden = forbiddenMembers('http');
  // The check knows what it guards: the store and the connect flow are out of the HTTP layer's reach.
  assert.equal(forbidden.get('store'), 'store');
  assert.equal(forbidden.get('connect'), 'connect');
  const found = sourceFiles(join(SRC, 'http')).flatMap((file) =>
    forbiddenReaches(relative(SRC, file), readFileSync(file, 'utf8'), forbidden),
  );
  assert.deepEqual(found, []);
});

test('a store or connect-flow call planted in a route fails the layer check', () => {
  const forbidden = forbiddenMembers('http');
  const file = join(SRC, 'http/routes/v1.jobs.ts');
  const text = readFileSync(file, 'utf8');
  // Both places the planting edits are in the route as it is.
  assert.ok(text.includes('ctx.jobReads.find(') && text.includes('await ctx.jobs.cancel(job.id);'));
  const planted = text
    .replace('ctx.jobReads.find(', 'ctx.store.jobs.find(')
    .replace(
      'await ctx.jobs.cancel(job.id);',
      "await ctx.jobs.cancel(job.id);\n const { connect } = ctx; void ctx['connections'];",
    );
  const found = forbiddenReaches('v1.jobs.job_id.ts', planted, forbidden);
  assert.deepEqual(
    found.map((f) => f.replace(/:\d+/, '')),
    [
      'v1.jobs.job_id.ts reaches connect (connect)',
      'v1.jobs.job_id.ts reaches connections (connections)',
      'v1.jobs.job_id.ts reaches store (store)',
    ],
  );
});

test('src/ has no import cycle, type-only imports included', () => {
  const cycles = importCycles().map((cycle) => cycle.map((file) => relative(SRC, file)).join(' → '));
  assert.deepEqual(cycles, []);
});
