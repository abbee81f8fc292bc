/**
 * Keeps docs/spec-coverage.md honest: every file a row cites exists, every test title it cites is
 * a string literal of that test file (the title of an it/describe/test, it.each included), every
 * status is one of the four, and the totals at the end add up. A renamed test or a moved file
 * fails here until its row is updated.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const DOC = 'docs/spec-coverage.md';
const STATUSES = ['done', 'partial', 'missing', 'deliberately different'] as const;

interface Row {
  line: number;
  item: string;
  status: string;
  code: string[];
  tests: { file: string; title: string }[];
}

/** Splits a table line on the `|` that are not escaped as `\|`. */
function cells(line: string): string[] {
  const parts = line
    .trim()
    .slice(1, -1)
    .split(/(?<!\\)\|/);
  return parts.map((p) => p.trim().replace(/\\\|/g, '|'));
}

function parseRows(text: string): Row[] {
  const rows: Row[] = [];
  text.split('\n').forEach((line, index) => {
    if (!line.startsWith('| ') || line.startsWith('| Item |') || /^\|[-| ]+\|$/.test(line)) return;
    const [item = '', status = '', code = '', test = ''] = cells(line);
    const paths = [...code.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
    const tests = test
      .split('<br>')
      .filter((t) => t.trim() !== '')
      .map((t) => {
        const m = /^`([^`]+)` :: (.+)$/.exec(t.trim());
        if (!m) throw new Error(`${DOC}:${index + 1}: a test cell must read \`file\` :: title, got ${JSON.stringify(t)}`);
        return { file: m[1]!, title: m[2]! };
      });
    rows.push({ line: index + 1, item, status, code: paths, tests });
  });
  return rows;
}

/** Whether the title occurs as a string literal (any quote, escaped as the source would write it). */
function hasTitle(source: string, title: string): boolean {
  return (["'", '"', '`'] as const).some(
    (q) => source.includes(q + title.replace(/\\/g, '\\\\').replaceAll(q, `\\${q}`) + q) || source.includes(q + title + q),
  );
}

const text = readFileSync(join(ROOT, DOC), 'utf8');
const rows = parseRows(text);

describe('docs/spec-coverage.md', () => {
  it('has rows in all nine sections', () => {
    for (let n = 1; n <= 9; n++) expect(text).toMatch(new RegExp(`^## ${n}\\. `, 'm'));
    expect(rows.length).toBeGreaterThan(300);
  });

  it('gives every row one of the four statuses, and a reason when it is not done', () => {
    const bad = rows.filter((r) => !(STATUSES as readonly string[]).includes(r.status)).map((r) => `${DOC}:${r.line} ${r.status}`);
    expect(bad).toEqual([]);
    const unexplained = rows.filter((r) => r.status !== 'done' && cells(text.split('\n')[r.line - 1]!)[4] === '').map((r) => `${DOC}:${r.line}`);
    expect(unexplained).toEqual([]);
  });

  it('cites a test for every done row', () => {
    expect(rows.filter((r) => r.status === 'done' && r.tests.length === 0).map((r) => `${DOC}:${r.line} ${r.item}`)).toEqual([]);
  });

  it('cites only files that exist', () => {
    const missing = rows.flatMap((r) =>
      [...r.code, ...r.tests.map((t) => t.file)].filter((p) => !existsSync(join(ROOT, p))).map((p) => `${DOC}:${r.line} ${p}`),
    );
    expect(missing).toEqual([]);
  });

  it('cites only test titles that occur in the cited test file', () => {
    const sources = new Map<string, string>();
    const stale: string[] = [];
    for (const r of rows) {
      for (const t of r.tests) {
        expect(t.file, `${DOC}:${r.line}`).toMatch(/\.test\.tsx?$/);
        const path = join(ROOT, t.file);
        if (!existsSync(path)) continue; // reported by the test above
        if (!sources.has(t.file)) sources.set(t.file, readFileSync(path, 'utf8'));
        if (!hasTitle(sources.get(t.file)!, t.title)) stale.push(`${DOC}:${r.line} ${t.file} :: ${t.title}`);
      }
    }
    expect(stale).toEqual([]);
  });

  it('has totals that match the rows', () => {
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
    for (const status of STATUSES) {
      expect(text, status).toContain(`- ${status}: ${counts.get(status) ?? 0}\n`);
    }
    expect(text).toContain(`- rows: ${rows.length}\n`);
  });
});
