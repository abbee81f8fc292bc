import { describe, expect, it } from 'vitest';
import { useHarness } from '../../test/harness.js';
import { expectKnownError, expectStatus } from '../../test/team-fixtures.js';

/** `POST /emails/render-email` over HTTP: the editor's preview, rendered in the sandbox. */

const h = useHarness();

const template = `import { Text, Link } from '@react-email/components';
import { Subject, NotificationCategory } from '@latch/emails';
export const variablesSchema = { code: 'string' };
export function EmailTemplate({ user, project, variables }) {
  return <>
    <Subject value={'Welcome to ' + project.displayName} />
    <NotificationCategory value="Transactional" />
    <Text className="text-lg">Hello {user.displayName}, your code is {variables.code}</Text>
  </>;
}`;
const theme = `import { Html, Body, Container, Link } from '@react-email/components';
export function EmailTheme({ children, unsubscribeLink }) {
  return <Html><Body><Container>{children}</Container><Link href={unsubscribeLink}>Unsubscribe</Link></Body></Html>;
}`;

describe('POST /emails/render-email', () => {
  it('renders a template through a theme with variables, for admins only', async () => {
    const project = await h.createProject({ displayName: 'Acme' });
    const res = await h.post(
      '/emails/render-email',
      { template_tsx_source: template, theme_tsx_source: theme, variables: { code: '<b>42</b>' } },
      project.admin(),
    );
    expectStatus(res, 200);
    expect(res.body.subject).toBe('Welcome to Acme');
    expect(res.body.notification_category).toBe('Transactional');
    expect(res.body.html).toContain('your code is <!-- -->&lt;b&gt;42&lt;/b&gt;');
    expect(res.body.html).toContain('font-size:1.125rem');
    expect(res.body.html).toContain('Unsubscribe');
    expect(res.body.text).toContain('your code is <b>42</b>');

    expectStatus(await h.post('/emails/render-email', { template_tsx_source: template }, project.server()), 401);
  });

  it('answers EMAIL_RENDERING_ERROR (400) with the line of a compile error, and of a refused import', async () => {
    const project = await h.createProject();
    const broken = await h.post('/emails/render-email', { template_tsx_source: 'export function EmailTemplate() {\n  const = 5;\n}' }, project.admin());
    expectKnownError(broken, 400, 'EMAIL_RENDERING_ERROR');
    expect(broken.body.details.line).toBe(2);

    const importing = await h.post(
      '/emails/render-email',
      { template_tsx_source: "import { readFileSync } from 'node:fs';\nexport function EmailTemplate() { return readFileSync('/etc/passwd', 'utf8'); }" },
      project.admin(),
    );
    expectKnownError(importing, 400, 'EMAIL_RENDERING_ERROR');
    expect(importing.body.details).toMatchObject({ line: 1 });
    expect(importing.body.error).toContain('Import of "node:fs" is not allowed');
  });

  it('a hostile template fails its own render and the server keeps answering', async () => {
    const project = await h.createProject();
    const looping = await h.post('/emails/render-email', { template_tsx_source: 'export function EmailTemplate() { for (;;) {} }' }, project.admin());
    expectKnownError(looping, 400, 'EMAIL_RENDERING_ERROR');
    expect(looping.body.error).toContain('took longer than');
    const bad = await h.post('/emails/render-email', { template_tsx_source: template, variables: { code: 1 } }, project.admin());
    expectKnownError(bad, 400, 'EMAIL_RENDERING_ERROR');
    expect(bad.body.error).toContain('Variable code must be a string');
    const fine = await h.post('/emails/render-email', { template_tsx_source: template, variables: { code: 'ok' } }, project.admin());
    expectStatus(fine, 200);
  });

  it("one project's previews run one at a time (at most 4 waiting, then RATE_LIMITED), so its hostile templates never hold every render thread", async () => {
    const a = await h.createProject();
    const b = await h.createProject();
    const finished: string[] = [];
    const loopEnds: number[] = [];
    // Six loops of A at once: one runs, four wait their turn, the sixth is refused at once.
    const looping = Array.from({ length: 6 }, (_, i) =>
      h.post('/emails/render-email', { template_tsx_source: `export function EmailTemplate() { for (;;) {} } // ${i}` }, a.admin()).then((res) => {
        finished.push(`a${i}`);
        if (res.body.code === 'EMAIL_RENDERING_ERROR') loopEnds.push(performance.now());
        return res;
      }),
    );
    // B's preview is not queued behind A's: a render thread is free for it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const fine = await h.post('/emails/render-email', { template_tsx_source: template, variables: { code: 'ok' } }, b.admin());
    finished.push('b');
    expectStatus(fine, 200);
    const answers = await Promise.all(looping);
    expect(answers.map((res) => res.body.code).sort()).toEqual([...Array(5).fill('EMAIL_RENDERING_ERROR'), 'RATE_LIMITED'].sort());
    expect(answers.find((res) => res.body.code === 'RATE_LIMITED')!.status).toBe(429);
    // A's five renders took their turns (≥ 1 s each); B finished before A's last one.
    expect(finished.indexOf('b')).toBeLessThan(finished.length - 1);
    expect(finished.at(-1)).toMatch(/^a/);
    // Each loop that ran into the 1 s deadline holds A's turn as long again: the next starts ≥ 2 s later.
    expect(loopEnds).toHaveLength(5);
    expect(loopEnds.at(-1)! - loopEnds[0]!).toBeGreaterThanOrEqual(4 * 1900);
  }, 60_000);
});
