import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

export const SRC = resolve(import.meta.dirname, '../../src');

/**
 * What each layer may import, as docs/architecture.md states it. A layer is a folder of src/;
 * `providers` is the generic part of src/providers (the adapter contract, registry, outbound
 * client, shared OAuth), `crm` any one CRM's folder under it, `providers-list` the registry list
 * `providers/index.ts`, `root` the composition root (context.ts, app.ts, main.ts).
 */
export const ALLOWED: Record<string, readonly string[]> = {
  domain: [],
  lib: [],
  errors: [],
  store: ['domain', 'lib', 'errors'],
  config: ['domain', 'crm-profile'],
  crypto: ['domain', 'lib', 'errors', 'config', 'store'],
  providers: ['domain', 'lib', 'errors', 'config'],
  crm: ['domain', 'lib', 'errors', 'config', 'providers'],
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
