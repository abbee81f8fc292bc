/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time by package / area, self time by
 * function, and inclusive time by function (each function counted once per sample, however deep
 * the recursion). Used by `BENCH_PROFILE=1 npm run bench`; also runnable by hand:
 *   npx tsx bench/profile-summary.ts <file.cpuprofile> [top]
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface ProfileSummary {
  totalMs: number;
  idleMs: number;
  byArea: Array<{ name: string; ms: number; pct: number }>;
  selfByFunction: Array<{ name: string; ms: number; pct: number }>;
  inclusiveByFunction: Array<{ name: string; ms: number; pct: number }>;
}

/** Where a frame's code lives: an npm package, a project folder, node internals, or V8/GC. */
function areaOf(frame: CallFrame): string {
  const url = frame.url;
  if (!url) {
    if (frame.functionName === '(garbage collector)') return '(garbage collector)';
    if (frame.functionName === '(idle)' || frame.functionName === '(program)' || frame.functionName === '(root)') return frame.functionName;
    return '(native / V8 builtins)';
  }
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0] === 'internal' ? url.slice(5).split('/').slice(0, 2).join('/') : url.slice(5)}`;
  const project = /\/(server|migrations|bench)\/(.*)$/.exec(url);
  if (project)
    return `${project[1]}/${project[2]!
      .split('/')
      .slice(0, project[1] === 'server' ? 2 : 1)
      .join('/')}`;
  return url;
}

function functionKey(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return name;
  const file = frame.url
    .replace(/^file:\/\//, '')
    .replace(/^.*node_modules\//, '')
    .replace(/^.*\/work\/main\//, '');
  return `${name} ${file}:${frame.lineNumber + 1}`;
}

export function summarizeProfile(file: string, top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const self = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const area = new Map<string, number>();
  const selfFn = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const [id, micros] of self) {
    const node = byId.get(id)!;
    total += micros;
    if (node.callFrame.functionName === '(idle)') idle += micros;
    const a = areaOf(node.callFrame);
    area.set(a, (area.get(a) ?? 0) + micros);
    const key = functionKey(node.callFrame);
    selfFn.set(key, (selfFn.get(key) ?? 0) + micros);
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const k = functionKey(byId.get(cur)!.callFrame);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + micros);
    }
  }
  const busy = total - idle;
  const rank = (m: Map<string, number>, skip: (name: string) => boolean = () => false) =>
    [...m]
      .filter(([name]) => !skip(name))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, micros]) => ({ name, ms: micros / 1000, pct: busy > 0 ? (100 * micros) / busy : 0 }));
  const notBusy = (name: string) => name === '(idle)' || name === '(root)' || name === '(program)';
  return {
    totalMs: total / 1000,
    idleMs: idle / 1000,
    byArea: rank(area, notBusy),
    selfByFunction: rank(selfFn, notBusy),
    // Inclusive: skip the frames that contain everything (root, the event loop's own entry points).
    inclusiveByFunction: rank(
      inclusive,
      (name) => notBusy(name) || /^\(anonymous\)$/.test(name) || name.startsWith('processTicksAndRejections') || name.startsWith('listOnTimeout'),
    ),
  };
}

export function formatSummary(title: string, s: ProfileSummary): string {
  const table = (rows: ProfileSummary['byArea']) =>
    rows.map((r) => `| ${r.name.replace(/\|/g, '\\|')} | ${r.ms.toFixed(0)} | ${r.pct.toFixed(1)} % |`).join('\n');
  return [
    `#### ${title}`,
    '',
    `Busy ${(s.totalMs - s.idleMs).toFixed(0)} ms of ${s.totalMs.toFixed(0)} ms sampled (idle ${s.idleMs.toFixed(0)} ms). Percentages are of busy time.`,
    '',
    '| Self time by area | ms | share |',
    '|---|---:|---:|',
    table(s.byArea),
    '',
    '| Self time by function | ms | share |',
    '|---|---:|---:|',
    table(s.selfByFunction),
    '',
    '| Inclusive time by function | ms | share |',
    '|---|---:|---:|',
    table(s.inclusiveByFunction),
    '',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [top]');
    process.exit(2);
  }
  console.log(formatSummary(file, summarizeProfile(file, Number(process.argv[3] ?? 15))));
}
