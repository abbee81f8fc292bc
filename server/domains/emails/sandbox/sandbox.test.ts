import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KnownErrors } from '../../../../contract/errors/known-errors.js';
import { crashRenderThreadsForTesting, runInSandbox, SANDBOX_LIMITS, sandboxRestarts, warmUpSandbox } from './engine.js';
import { compileSources, renderOwnerEmail, renderOwnerEmails, type SandboxInput, SandboxRenderError, toRenderingError } from './index.js';
import { render } from '@react-email/render';
import { renderTree, toEmailElement } from './host-render.js';
import { renderStatic } from '../static-render.js';

const input: SandboxInput = {
  user: { displayName: 'Ada' },
  project: { displayName: 'Acme' },
  variables: {},
  unsubscribeLink: 'https://acme.test/unsubscribe?token=abc',
  projectLogos: { logoUrl: null, fullLogoUrl: null },
};

/** A template whose body is one <Text> holding `expression`, evaluated in the sandbox. */
function probe(expression: string, prelude = ''): string {
  return `import { Html, Text } from '@react-email/components';
${prelude}
export function EmailTemplate() { let v; try { v = String(${expression}); } catch (e) { v = 'threw:' + e.message; } return <Html><Text>{'[' + v + ']'}</Text></Html>; }`;
}

async function probeText(expression: string, prelude = ''): Promise<string> {
  const rendered = await renderOwnerEmail({ template: probe(expression, prelude), theme: null }, input);
  return /\[(.*)\]/s.exec(rendered.text)![1]!;
}

async function renderError(template: string, theme: string | null = null): Promise<SandboxRenderError> {
  const error = await renderOwnerEmail({ template, theme }, input).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SandboxRenderError);
  return error as SandboxRenderError;
}

const greeting = `import { Html, Body, Text, Button } from '@react-email/components';
import { Subject, NotificationCategory } from '@latch/emails';
export const variablesSchema = { name: 'string', count: 'number?' };
export function EmailTemplate({ user, project, variables }) {
  return (
    <Html>
      <Body>
        <Subject value={'Hello ' + variables.name + ' from ' + project.displayName} />
        <NotificationCategory value="Marketing" />
        <Text className="font-bold text-blue-600">Hi {variables.name}, {user.displayName}</Text>
        <Button href="https://acme.test/go?a=1&b=2">Open</Button>
      </Body>
    </Html>
  );
}`;

describe('the e-mail sandbox: rendering', () => {
  it('renders a template with the real components, Tailwind inlined on the host, and its markers', async () => {
    const rendered = await renderOwnerEmail({ template: greeting, theme: null }, { ...input, variables: { name: 'Lin' } });
    expect(rendered.subject).toBe('Hello Lin from Acme');
    expect(rendered.notificationCategory).toBe('Marketing');
    expect(rendered.html).toMatch(/^<!DOCTYPE html/);
    expect(rendered.html).toContain('font-weight:700');
    expect(rendered.html).toContain('href="https://acme.test/go?a=1&amp;b=2"');
    expect(rendered.text).toContain('Hi Lin, Ada');
    expect(rendered.text).toContain('https://acme.test/go?a=1&b=2');
  });

  it('a tree without Tailwind renders synchronously to what React Email renders, without its Suspense markers', async () => {
    const el = (t: string, p: Record<string, unknown>, ...c: unknown[]) => ({ t, p, c });
    const tree = el(
      'Html',
      { lang: 'en' },
      el('Head', {}),
      el(
        'Body',
        { style: { backgroundColor: '#fff' } },
        el('Preview', {}, 'Your weekly edition'),
        el(
          'Container',
          {},
          el('Heading', { as: 'h1' }, 'Hello ', 'Ada & <Bob>'),
          el('Img', { src: 'https://acme.test/logo.png', alt: 'Acme', width: 40 }),
          el('Text', {}, 'Two ', 'texts ', 'side by side'),
          el('Button', { href: 'https://acme.test/go?a=1&b=2' }, 'Open'),
          el('Hr', {}),
          el('table', {}, el('tbody', {}, el('tr', {}, el('td', {}, 'cell')))),
          el('Link', { href: 'mailto:help@acme.test' }, 'Help'),
        ),
      ),
    );
    const { element, suspends } = toEmailElement(tree);
    expect(suspends).toBe(false);
    const streamed = await render(element);
    const fast = renderStatic(element);
    // React's streaming markers: Suspense boundaries, hoisted html/head/body, text separators.
    const markers = /<!--(?:\$|\/\$|html|head|body| )-->/g;
    expect(streamed).toMatch(markers);
    expect(fast).not.toMatch(markers);
    expect(fast).toBe(streamed.replace(markers, ''));
    expect((await renderTree(tree)).html).toBe(fast);
    // With classes the tree needs Tailwind, which suspends: still the streaming render (classes inlined).
    const classy = el('Text', { className: 'font-bold' }, 'Bold');
    expect(toEmailElement(classy).suspends).toBe(true);
    expect((await renderTree(classy)).html).toContain('font-weight:700');
  });

  it('wraps the content in a theme, which receives the unsubscribe link', async () => {
    const theme = `import { Html, Body, Container, Link } from '@react-email/components';
export function EmailTheme({ children, unsubscribeLink }) {
  return <Html><Body><Container>{children}</Container><Link href={unsubscribeLink}>Unsubscribe</Link></Body></Html>;
}`;
    const template = `import { Text } from '@react-email/components';
export function EmailTemplate() { return <Text>Inside the theme</Text>; }`;
    const rendered = await renderOwnerEmail({ template, theme }, input);
    expect(rendered.html).toContain('Inside the theme');
    expect(rendered.html).toContain('href="https://acme.test/unsubscribe?token=abc"');
    expect(rendered.subject).toBeNull();
  });

  it('checks variables against the template schema: unknown, missing and mistyped ones fail', async () => {
    for (const [variables, message] of [
      [{ name: 'x', extra: 1 }, 'Unknown variable: extra'],
      [{}, 'Missing variable: name'],
      [{ name: 5 }, 'Variable name must be a string'],
    ] as const) {
      const error = await renderOwnerEmail({ template: greeting, theme: null }, { ...input, variables }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SandboxRenderError);
      expect((error as Error).message).toContain(message);
    }
  });

  it('maps a failure to the catalogued 400 EMAIL_RENDERING_ERROR with its line', async () => {
    const error = await renderError(`import { Text } from '@react-email/components';\n\nexport function EmailTemplate() { return <Text>{</Text>; }`);
    expect(error.stage).toBe('compile');
    expect(error.line).toBe(3);
    const known = toRenderingError(error);
    expect(known).toBeInstanceOf(KnownErrors.EmailRenderingError);
    expect(known.status).toBe(400);
    expect(known.details).toMatchObject({ line: 3 });
  });
});

describe('the e-mail sandbox: runtime errors point at the owner line', () => {
  it('a throw in the template reports its line in the template', async () => {
    const error = await renderError(`import { Text } from '@react-email/components';

function label(n) {
  if (n > 1) throw new Error('too many: ' + n);
  return n;
}
export function EmailTemplate() { return <Text>{label(2)}</Text>; }`);
    expect(error.stage).toBe('run');
    expect(error.message).toContain('too many: 2');
    expect(error.line).toBe(4);
  });

  it('a throw in the theme says so, with the theme line', async () => {
    const theme = `export function EmailTheme({ children }) {
  const x = null;
  return x.boom;
}`;
    const error = await renderError(`export function EmailTemplate() { return 'hi'; }`, theme);
    expect(error.message).toMatch(/^Theme: TypeError/);
    expect(error.line).toBe(3);
  });
});

describe('the e-mail sandbox: imports are an allowlist', () => {
  it.each([
    ["import fs from 'node:fs';", 'node:fs'],
    ["import fs from 'fs';", 'fs'],
    ["import cp from 'child_process';", 'child_process'],
    ["import secrets from '../../../../.env';", '../../../../.env'],
    ["import z from 'zod';", 'zod'],
  ])('%s is refused at compile time with its line', async (statement, name) => {
    const error = await renderError(
      `\n\n${statement}\nconsole.log(Object.keys(${statement.split(' ')[1]}));\nexport function EmailTemplate() { return null; }`,
    );
    expect(error.stage).toBe('compile');
    expect(error.message).toContain(`Import of "${name}" is not allowed`);
    expect(error.line).toBe(3);
  });

  it('refuses a literal dynamic import() at compile time, and a computed one finds no module loader', async () => {
    const literal = await renderError(`export async function EmailTemplate() { await import('node:fs'); return null; }`);
    expect(literal.message).toContain('Import of "node:fs" is not allowed');
    const computed = await probeText(`typeof (globalThis.__p = import(['node', 'fs'].join(':')))`);
    expect(computed).toMatch(/object|threw/);
    expect(await probeText(`'done'`, `let settled = 'pending';`)).toBe('done');
  });
});

describe('the e-mail sandbox: escape attempts fail', () => {
  const ABSENT = /^(undefined|threw:.*not defined)$/;
  it.each<[string, RegExp]>([
    ['typeof process', ABSENT],
    ['typeof fetch', ABSENT],
    ['typeof XMLHttpRequest', ABSENT],
    ['typeof WebAssembly', ABSENT],
    ['typeof setTimeout', ABSENT],
    ['typeof Buffer', ABSENT],
    ['typeof module', ABSENT],
    ["typeof Function('return this')().process", ABSENT],
    ["typeof (0, eval)('this').require", ABSENT],
    ["globalThis.constructor.constructor('return typeof process')()", ABSENT],
    ["({}).constructor.constructor('return process')()", ABSENT],
    ["Object.getPrototypeOf(async function(){}).constructor('return process')().constructor.name", /^(Promise|threw:.*)$/],
    // esbuild's own stub is the only require: it throws for any module it was not given.
    ["require(['f', 's'].join(''))", /^threw:/],
  ])('%s finds nothing of the host', async (expression, expected) => {
    expect(await probeText(expression)).toMatch(expected);
  });

  it('an async function constructor still reaches no process', async () => {
    expect(await probeText(`typeof new Function('try { return process } catch (e) { return undefined }')()`)).toBe('undefined');
  });

  it('prototype tampering stays inside that render: the next render and the host see clean prototypes', async () => {
    const tamper = `Object.prototype.polluted = 'yes'; Array.prototype.map = function () { return ['hijacked']; }; JSON.stringify = () => '{"tree":{"t":"script","p":{},"c":["alert(1)"]},"meta":{}}';`;
    // A forged JSON.stringify can hand the host any tree it likes: the host's validation is what
    // refuses the <script>, so the render fails rather than carrying it.
    const error = await renderOwnerEmail({ template: probe('1', tamper), theme: null }, input).catch((e: unknown) => e);
    if (error) expect((error as Error).message).toMatch(/not allowed/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await probeText(`({}).polluted + ',' + [1].map((x) => x + 1)`)).toBe('undefined,2');
  });

  it("one render cannot read another render's data", async () => {
    const stash = `import { Text } from '@react-email/components';
export function EmailTemplate({ variables }) { globalThis.__stash = variables.secret; Object.prototype.__secret = variables.secret; return <Text>stored</Text>; }`;
    await renderOwnerEmail({ template: stash, theme: null }, { ...input, variables: { secret: 'victim-secret-123' } });
    const seen = await probeText(`globalThis.__stash + ',' + ({}).__secret`);
    expect(seen).toBe('undefined,undefined');
  });
});

describe('the e-mail sandbox: limits hold, and the engine survives them', () => {
  it('an infinite loop is stopped by the deadline', async () => {
    const error = await renderError(`while (true) {}\nexport function EmailTemplate() { return null; }`);
    expect(error.message).toContain(`took longer than ${SANDBOX_LIMITS.timeMs} ms`);
  });

  it('deep recursion is a stack overflow, not a crash', async () => {
    const error = await renderError(`function f(n) { return f(n + 1) + 1; }\nexport function EmailTemplate() { return f(0); }`);
    expect(error.message).toMatch(/stack overflow/i);
  });

  it('a memory bomb is stopped (by the memory limit or the deadline), and the worker is replaced when needed', async () => {
    const before = sandboxRestarts();
    const error = await renderError(`const a = []; while (true) a.push('x'.repeat(1e5) + a.length);\nexport function EmailTemplate() { return null; }`);
    expect(error.message).toMatch(/took longer than|used more than|out of memory/);
    expect(sandboxRestarts()).toBeGreaterThanOrEqual(before);
  });

  it('an oversized or too deep tree is refused', async () => {
    // Building 30,000 elements takes QuickJS a few hundred ms on a quiet machine, past the 1 s
    // deadline on a loaded one: this case runs with a 10 s deadline, so it is the node limit that
    // refuses it, whatever else the machine is doing.
    const compiled = await compileSources({
      template: `import { Text } from '@react-email/components';
export function EmailTemplate() { return <Text>{Array.from({ length: 30000 }, (_, i) => <span key={i}>x</span>)}</Text>; }`,
      theme: null,
    });
    await expect(runInSandbox(compiled.script, JSON.stringify(input), { ...SANDBOX_LIMITS, timeMs: 10_000 })).rejects.toThrow('too many nodes');
    const deep = await renderError(`import { Section } from '@react-email/components';
function Nest({ n }) { return n === 0 ? 'x' : <Section><Nest n={n - 1} /></Section>; }
export function EmailTemplate() { return <Nest n={500} />; }`);
    expect(deep.message).toMatch(/nested too deeply/);
  });

  it('after every abort a normal render still works', async () => {
    await renderError(`while (true) {}\nexport function EmailTemplate() { return null; }`);
    const rendered = await renderOwnerEmail({ template: greeting, theme: null }, { ...input, variables: { name: 'After' } });
    expect(rendered.subject).toBe('Hello After from Acme');
  });

  it('runInSandbox honours a smaller memory limit', async () => {
    const error = await runInSandbox(`var big = []; for (var i = 0; i < 1e6; i++) big.push({ i: i, s: 'abc' + i });`, '{}', {
      ...SANDBOX_LIMITS,
      memoryBytes: 4 * 1024 * 1024,
    }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/used more than 4 MB|took longer/);
  });
});

describe('the e-mail sandbox: the host validates the tree', () => {
  it.each([
    [`<script>{'alert(1)'}</script>`, 'Element <script> is not allowed'],
    [`<iframe src="https://evil.test" />`, 'Element <iframe> is not allowed'],
    [`<a href="javascript:alert(1)">x</a>`, 'href on <a> must be an http, https or mailto URL'],
    [`<img src="data:image/png;base64,AAAA" />`, 'src on <img> must be an http, https or mailto URL'],
    [`<a href="/relative">x</a>`, 'href on <a> must be an http, https or mailto URL'],
    [`<div {...{ onclick: 'alert(1)' }}>x</div>`, 'Attribute onclick is not allowed'],
    [`<div style={{ background: 'url(javascript:alert(1))' }}>x</div>`, 'may only load https URLs'],
  ])('%s is refused', async (jsx, message) => {
    const error = await renderError(`export function EmailTemplate() { return ${jsx}; }`);
    expect(error.stage).toBe('validate');
    expect(error.message).toContain(message);
  });

  it('event handler functions never leave the sandbox, and mailto links pass', async () => {
    const rendered = await renderOwnerEmail(
      { template: `export function EmailTemplate() { return <a href="mailto:help@acme.test" onClick={() => 1}>Mail us</a>; }`, theme: null },
      input,
    );
    expect(rendered.html).toContain('href="mailto:help@acme.test"');
    expect(rendered.html).not.toMatch(/onclick/i);
  });
});

describe('the e-mail sandbox: variables are data, never markup (fuzzed)', () => {
  const template = `import { Html, Text } from '@react-email/components';
import { Subject } from '@latch/emails';
export const variablesSchema = { name: 'string' };
export function EmailTemplate({ variables }) { return <Html><Subject value={variables.name} /><Text>{'«' + variables.name + '»'}</Text></Html>; }`;
  const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#x27;');

  it('any string variable is escaped in the HTML and present as-is in the text and subject', async () => {
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[a-zA-Z0-9<>&"'=/]{1,24}$/), async (name) => {
        const rendered = await renderOwnerEmail({ template, theme: null }, { ...input, variables: { name } });
        expect(rendered.html).toContain(`«${escape(name)}»`);
        if (/[<>&]/.test(name)) expect(rendered.html).not.toContain(`«${name}»`);
        expect(rendered.text).toContain(`«${name}»`);
        expect(rendered.subject).toBe(name);
      }),
      { numRuns: 25 },
    );
  });
});

describe('the e-mail sandbox: batches on render threads', () => {
  const slow = `import { Text } from '@react-email/components';
import { Subject } from '@latch/emails';
export const variablesSchema = { name: 'string' };
export function EmailTemplate({ variables }) {
  const until = Date.now() + 250;
  while (Date.now() < until) {}
  return <><Subject value={'Hi ' + variables.name} /><Text>{variables.name}</Text></>;
}`;

  it('a thread that dies mid-batch fails only the render in progress (the catalogued error), and the batch goes on in a new thread', async () => {
    await warmUpSandbox();
    const before = sandboxRestarts();
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const pending = renderOwnerEmails(
      { template: slow, theme: null },
      names.map((name) => ({ ...input, variables: { name } })),
    );
    // Each render takes a quarter of a second: wait until the thread is inside the batch, then kill it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    await crashRenderThreadsForTesting();
    const results = await pending;
    const failed = results.filter((r): r is SandboxRenderError => r instanceof SandboxRenderError);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.message).toMatch(/rendering engine (stopped|failed|could not start)/);
    expect(toRenderingError(failed[0]!)).toBeInstanceOf(KnownErrors.EmailRenderingError);
    results.forEach((r, i) => {
      if (!(r instanceof SandboxRenderError)) expect(r.subject).toBe(`Hi ${names[i]}`);
    });
    expect(sandboxRestarts()).toBeGreaterThan(before);
    // The new thread renders as before.
    expect((await renderOwnerEmail({ template: greeting, theme: null }, { ...input, variables: { name: 'Later' } })).subject).toBe('Hello Later from Acme');
    // Two new threads load QuickJS and React (from the TypeScript sources under tsx): 5–30 s on a loaded machine.
  }, 60_000);

  it('one recipient of a batch failing or timing out does not fail the others', async () => {
    const picky = `import { Text } from '@react-email/components';
export const variablesSchema = { name: 'string' };
export function EmailTemplate({ variables }) {
  if (variables.name === 'loop') while (true) {}
  if (variables.name === 'throw') throw new Error('bad ' + variables.name);
  return <Text>{'ok ' + variables.name}</Text>;
}`;
    const results = await renderOwnerEmails(
      { template: picky, theme: null },
      ['x', 'throw', 'y', 'loop', 'z'].map((name) => ({ ...input, variables: { name } })),
    );
    expect(results.map((r) => (r instanceof SandboxRenderError ? `error: ${r.message}` : r.text))).toEqual([
      'ok x',
      expect.stringContaining('bad throw'),
      'ok y',
      `error: The e-mail took longer than ${SANDBOX_LIMITS.timeMs} ms to render`,
      'ok z',
    ]);
  });
});
