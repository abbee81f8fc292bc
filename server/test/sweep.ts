import type { ApiResponse } from './harness.js';

/** Helpers shared by the sweeps that walk every operation of openapi.json (fuzz.test.ts, isolation.test.ts). */

/** Every operation of an openapi.json `paths` object, in file order, keyed `METHOD /path`. */
export function openApiOperations<S>(paths: Record<string, Record<string, S>>): { key: string; method: string; path: string; spec: S }[] {
  const out: { key: string; method: string; path: string; spec: S }[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, spec] of Object.entries(item)) out.push({ key: `${method.toUpperCase()} ${path}`, method: method.toUpperCase(), path, spec });
  }
  return out;
}

/** Runs the tasks with at most `limit` in flight; results keep the tasks' order. */
export async function pool<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, tasks.length) }, async () => {
      while (next < tasks.length) {
        const index = next++;
        results[index] = await tasks[index]!();
      }
    }),
  );
  return results;
}

/** The body of a setup request that must succeed (200 or 201); anything else stops the sweep with its reason. */
export async function ok<T = any>(res: Promise<ApiResponse<T>>, what: string): Promise<T> {
  const r = await res;
  if (r.status !== 200 && r.status !== 201) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}
