// Summarises a V8 .cpuprofile (node --cpu-prof): self time by function and by package or source
// folder, as shares of the busy samples. Run: node bench/lib/cpu-profile-summary.ts FILE [TOP] [SKIP_S]
// (SKIP_S: leave out the first seconds, the start-up).
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const file = process.argv[2];
if (file === undefined) throw new Error('usage: cpu-profile-summary.ts FILE.cpuprofile [TOP]');
const top = Number(process.argv[3] ?? 25);
const skipUs = Number(process.argv[4] ?? 0) * 1e6;
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
let elapsedUs = 0;
profile.samples.forEach((id, i) => {
  elapsedUs += profile.timeDeltas[i] ?? 0;
  if (elapsedUs >= skipUs) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
// Shares are of the busy time: the samples where the thread was not waiting for work.
const idle = profile.nodes
  .filter((n) => n.callFrame.functionName === '(idle)')
  .reduce((a, n) => a + (selfUs.get(n.id) ?? 0), 0);
const total = [...selfUs.values()].reduce((a, b) => a + b, 0) - idle;

function area(url: string): string {
  if (url === '') return '(native/V8)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg !== undefined) return pkg;
  if (url.startsWith('node:')) return url;
  const src = /\/(dist\/)?(src\/[^/]+\/[^/]+|src\/[^/]+)/.exec(url)?.[2];
  return src ?? url.replace(/^file:\/\//, '');
}

const byFunction = new Map<string, number>();
const byArea = new Map<string, number>();
for (const [id, us] of selfUs) {
  const node = byId.get(id);
  if (node === undefined || node.callFrame.functionName === '(idle)') continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const where =
    url === '' ? '' : ` ${url.replace(/^.*\/(node_modules\/|dist\/|src\/)/, '$1')}:${lineNumber + 1}`;
  const fn = `${functionName || '(anonymous)'}${where}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  byArea.set(area(url), (byArea.get(area(url)) ?? 0) + us);
}
const show = (m: Map<string, number>, n: number) =>
  [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`)
    .join('\n');
console.log(
  `${file}: ${(total / 1e6).toFixed(2)} s busy (${(idle / 1e6).toFixed(2)} s idle)\n\nself time by area\n${show(byArea, top)}`,
);
console.log(`\nself time by function\n${show(byFunction, top)}`);
