import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export const SRC = resolve(import.meta.dirname, '../../src');

/**
 * What each layer may import, as docs/architecture.md states it. A layer is a folder of src/;
 * `providers` is the generic part of src/providers (the adapter contract, registry, outbound
 * client, shared OAuth), `crm` any one CRM's folder under it, `providers-list` the registry list
 * `providers/index.ts`, `config-settings` the part of src/config a provider declares its settings
 * with (settings.ts, read.ts, error.ts), `root` the composition root (context.ts, app.ts, main.ts).
 */
export const ALLOWED: Record<string, readonly string[]> = {
  domain: [],
  lib: [],
  errors: [],
  store: ['domain', 'lib', 'errors'],
  'config-settings': [],
  config: ['domain', 'config-settings', 'providers-list'],
  crypto: ['domain', 'lib', 'errors', 'config', 'store'],
  providers: ['domain', 'lib', 'errors', 'config-settings'],
  crm: ['domain', 'lib', 'errors', 'config-settings', 'providers'],
  'providers-list': ['providers', 'crm'],
  proxy: ['domain', 'lib', 'errors', 'providers'],
  connections: ['domain', 'lib', 'errors', 'store', 'crypto', 'providers', 'providers-list'],
  auth: ['domain', 'lib', 'errors', 'store', 'crypto'],
  operations: ['domain', 'lib', 'errors', 'providers', 'proxy', 'connections'],
  connect: ['domain', 'lib', 'errors', 'config', 'store', 'crypto', 'providers', 'connections'],
  admin: ['domain', 'lib', 'errors', 'store', 'crypto', 'auth', 'connections'],
  jobs: ['domain', 'lib', 'errors', 'store', 'providers', 'operations'],
  http: [
    'domain',
    'lib',
    'errors',
    'config',
    'providers',
    'operations',
    'auth',
    'admin',
    'jobs',
    'root-types',
  ],
};

/** Layer of a file under src/. */
export function layerOf(file: string): string {
  const rel = relative(SRC, file).split(/[\\/]/);
  const [top, second] = rel;
  if (rel.length === 1) return 'root';
  if (top === 'config' && ['settings.ts', 'read.ts', 'error.ts'].includes(second ?? ''))
    return 'config-settings';
  if (top === 'providers') {
    if (rel.length === 2) return second === 'index.ts' ? 'providers-list' : 'providers';
    if (second === 'client') return 'providers';
    return rel[2] === 'profile.ts' ? 'crm-profile' : 'crm';
  }
  return top ?? 'root';
}

export function sourceFiles(dir: string = SRC): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Relative imports of a file (static, dynamic and type-only), resolved to absolute paths. */
export function importsOf(file: string): Array<{ target: string; typeOnly: boolean }> {
  const text = readFileSync(file, 'utf8');
  const found: Array<{ target: string; typeOnly: boolean }> = [];
  const pattern = /(?:^|\n)\s*(import|export)(\s+type)?[^'"]*?from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g;
  for (const m of text.matchAll(pattern)) {
    const spec = m[3] ?? m[4];
    if (spec !== undefined)
      found.push({ target: resolve(dirname(file), spec), typeOnly: m[2] !== undefined });
  }
  return found;
}

/** Groups of files that import each other in a cycle (strongly connected, two or more files). */
export function importCycles(): string[][] {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles()) {
    graph.set(
      file,
      importsOf(file).map((i) => i.target),
    );
  }
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    order.set(file, order.size);
    low.set(file, order.get(file) ?? 0);
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!order.has(next)) visit(next);
      if (stack.includes(next)) low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
    }
    if (low.get(file) !== order.get(file)) return;
    const group = stack.splice(stack.indexOf(file));
    if (group.length > 1) cycles.push(group);
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return cycles;
}
