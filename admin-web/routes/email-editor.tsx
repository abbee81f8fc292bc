import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import type { EmailDraft, EmailTemplate, EmailTheme, RenderedEmail, RenderEmailInput } from '../../sdk/index.js';
import { KnownError } from '../../sdk/index.js';
import { AiChatPanel } from '../components/ai-chat-panel.js';
import { Link, navigate } from '../components/router.js';
import { Card, Empty, ErrorMessage, Loading, PageHeader, QueryView, formatDate, useAction, useDebounced } from '../components/ui.js';
import type { SourceError } from '../editor/code-editor.js';
import type { PageProps } from './page-props.js';

/** The TSX editor is a chunk of its own, loaded when this page opens (not with the console). */
const CodeEditor = lazy(() => import('../editor/code-editor.js').then((module) => ({ default: module.CodeEditor })));

type Kind = 'template' | 'theme' | 'draft';
type ThemeChoice = string | false | null;
type Item = { kind: 'template'; value: EmailTemplate } | { kind: 'theme'; value: EmailTheme } | { kind: 'draft'; value: EmailDraft };

const CONTENT_KEY = ['console', 'email-content'] as const;

/** The sample user every preview is rendered for (the server's, so previews never carry a real user's data). */
const SAMPLE_USER = 'Ada Lovelace <ada@example.com>';

/** Variables of the built-in emails, so their previews render as they would be sent. */
function sampleVariables(type: string | null): Record<string, unknown> {
  const link = 'https://example.com/handler/action?code=SAMPLE';
  const expiresAt = new Date(Date.now() + 3600_000).toUTCString();
  switch (type) {
    case 'email_verification':
    case 'password_reset':
      return { link, expiresAt };
    case 'magic_link':
      return { link, expiresAt, otp: 'ABC123' };
    case 'team_invitation':
      return { link, expiresAt, teamDisplayName: 'Core team' };
    case 'sign_in_invitation':
      return { link };
    default:
      return {};
  }
}

/** `template:<id>` and the like: the item the URL opens. */
function parseItemId(itemId: string | null): { kind: Kind; id: string } | null {
  const match = /^(template|theme|draft):([0-9a-f-]{36})$/.exec(itemId ?? '');
  return match ? { kind: match[1] as Kind, id: match[2]! } : null;
}

/**
 * Email themes, templates and drafts, edited as TSX with a live preview (rendered by the server's
 * sandbox as you type, for a sample user), "Send a test to me", the AI assistant beside the
 * source, and for drafts: choose recipients and send now or later.
 */
export function EmailEditorPage({ projectId, admin, itemId }: PageProps & { itemId: string | null }) {
  const templates = useQuery({ queryKey: [...CONTENT_KEY, 'templates'], queryFn: () => admin.listEmailTemplates() }, admin.queryClient);
  const themes = useQuery({ queryKey: [...CONTENT_KEY, 'themes'], queryFn: () => admin.listEmailThemes() }, admin.queryClient);
  const drafts = useQuery({ queryKey: [...CONTENT_KEY, 'drafts'], queryFn: () => admin.listEmailDrafts() }, admin.queryClient);
  const refresh = () => void admin.queryClient.invalidateQueries({ queryKey: CONTENT_KEY });
  const base = `/projects/${projectId}/email-editor`;
  const creating = useAction(async (kind: 'template' | 'draft') => {
    const created =
      kind === 'draft'
        ? await admin.createEmailDraft({ display_name: `Draft ${new Date().toLocaleDateString()}` })
        : await admin.createEmailTemplate({ display_name: 'New template' });
    refresh();
    navigate(`${base}/${kind}:${created.id}`);
  });

  const selected = parseItemId(itemId);
  let item: Item | null = null;
  if (selected?.kind === 'template')
    item = templates.data?.find((t) => t.id === selected.id) ? { kind: 'template', value: templates.data.find((t) => t.id === selected.id)! } : null;
  if (selected?.kind === 'theme')
    item = themes.data?.find((t) => t.id === selected.id) ? { kind: 'theme', value: themes.data.find((t) => t.id === selected.id)! } : null;
  if (selected?.kind === 'draft')
    item = drafts.data?.find((t) => t.id === selected.id) ? { kind: 'draft', value: drafts.data.find((t) => t.id === selected.id)! } : null;
  const loading = templates.isPending || themes.isPending || drafts.isPending;

  return (
    <>
      <PageHeader
        title="Email editor"
        description="Themes, templates and drafts are TSX, rendered in a sandbox on the server. The preview follows as you type."
        actions={
          <>
            <button type="button" className="button" onClick={() => void creating.run('template')} disabled={creating.pending}>
              New template
            </button>
            <button type="button" className="button primary" onClick={() => void creating.run('draft')} disabled={creating.pending}>
              New draft
            </button>
          </>
        }
      />
      <ErrorMessage error={creating.error} title="Could not create it" />
      <div className="email-editor-layout">
        <nav className="email-editor-list" aria-label="Email content">
          <ContentList title="Drafts" query={drafts} base={base} kind="draft" selected={selected} describe={(d: EmailDraft) => draftStatus(d)} />
          <ContentList
            title="Templates"
            query={templates}
            base={base}
            kind="template"
            selected={selected}
            describe={(t: EmailTemplate) => (t.type ? 'built-in' : null)}
          />
          <ContentList
            title="Themes"
            query={themes}
            base={base}
            kind="theme"
            selected={selected}
            describe={(t: EmailTheme) => (t.is_project_default ? 'project theme' : null)}
          />
        </nav>
        <div className="email-editor-main">
          {item ? (
            <ItemEditor key={`${item.kind}:${item.value.id}`} item={item} admin={admin} themes={themes.data ?? []} projectId={projectId} onSaved={refresh} />
          ) : loading ? (
            <Loading label="Loading emails…" />
          ) : (
            <Empty title={selected ? 'No such item' : 'Choose a draft, template or theme'}>Or create a new draft to write a one-off email to your users.</Empty>
          )}
        </div>
      </div>
    </>
  );
}

function draftStatus(draft: EmailDraft): string | null {
  if (draft.scheduled_at_millis !== null) return `scheduled ${formatDate(draft.scheduled_at_millis)}`;
  if (draft.sent_at_millis !== null) return `sent ${formatDate(draft.sent_at_millis)}`;
  return null;
}

function ContentList<T extends { id: string; display_name: string }>({
  title,
  query,
  base,
  kind,
  selected,
  describe,
}: {
  title: string;
  query: ReturnType<typeof useQuery<T[]>>;
  base: string;
  kind: Kind;
  selected: { kind: Kind; id: string } | null;
  describe: (item: T) => string | null;
}) {
  return (
    <section aria-label={title}>
      <div className="nav-section">{title}</div>
      <QueryView query={query} loadingLabel={`Loading ${title.toLowerCase()}…`}>
        {(items) =>
          items.length === 0 ? (
            <p className="muted small">None yet.</p>
          ) : (
            <ul className="plain-list">
              {items.map((entry) => {
                const note = describe(entry);
                return (
                  <li key={entry.id}>
                    <Link
                      className="nav-link"
                      href={`${base}/${kind}:${entry.id}`}
                      aria-current={selected?.kind === kind && selected.id === entry.id ? 'page' : undefined}
                    >
                      {entry.display_name}
                      {note ? <span className="muted small"> · {note}</span> : null}
                    </Link>
                  </li>
                );
              })}
            </ul>
          )
        }
      </QueryView>
    </section>
  );
}

type Preview = { state: 'idle' } | { state: 'ok'; rendered: RenderedEmail } | { state: 'error'; error: unknown };

/** The editor's error mark: the line and message of a rendering error (EMAIL_RENDERING_ERROR). */
function sourceErrorOf(error: unknown): SourceError | null {
  if (!(error instanceof KnownError) || error.code !== 'EMAIL_RENDERING_ERROR') return null;
  const details = error.details as { error?: string; line?: number } | undefined;
  return typeof details?.line === 'number' ? { line: details.line, message: details.error ?? error.message } : null;
}

function ItemEditor({
  item,
  admin,
  themes,
  projectId,
  onSaved,
}: {
  item: Item;
  admin: PageProps['admin'];
  themes: EmailTheme[];
  projectId: string;
  onSaved: () => void;
}) {
  const [source, setSource] = useState(item.value.tsx_source);
  const [name, setName] = useState(item.value.display_name);
  const [theme, setTheme] = useState<ThemeChoice>(item.kind === 'theme' ? false : item.value.theme_id);
  const type = item.kind === 'template' ? item.value.type : null;
  const [variablesText, setVariablesText] = useState(() => JSON.stringify(sampleVariables(type), null, 2));
  const [view, setView] = useState<'desktop' | 'mobile' | 'text'>('desktop');
  const [preview, setPreview] = useState<Preview>({ state: 'idle' });
  const [rendering, setRendering] = useState(false);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const debouncedSource = useDebounced(source, 300);
  const debouncedVariables = useDebounced(variablesText, 300);

  let variables: Record<string, unknown> | null = {};
  try {
    const parsed = JSON.parse(debouncedVariables || '{}') as unknown;
    variables = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    variables = null;
  }

  const renderInput = (text: string): RenderEmailInput =>
    item.kind === 'theme'
      ? { theme_tsx_source: text }
      : { template_tsx_source: text, theme_id: theme, ...(item.kind === 'template' && variables ? { variables } : {}) };

  // The live preview: the server renders the source 300 ms after the last keystroke; an older answer never replaces a newer one.
  useEffect(() => {
    let current = true;
    setRendering(true);
    admin
      .renderEmail(renderInput(debouncedSource))
      .then((rendered) => current && setPreview({ state: 'ok', rendered }))
      .catch((error: unknown) => current && setPreview({ state: 'error', error }))
      .finally(() => current && setRendering(false));
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [debouncedSource, theme, debouncedVariables]);

  const saving = useAction(async () => {
    if (item.kind === 'template') await admin.updateEmailTemplate({ template_id: item.value.id, display_name: name, tsx_source: source, theme_id: theme });
    else if (item.kind === 'draft') await admin.updateEmailDraft({ draft_id: item.value.id, display_name: name, tsx_source: source, theme_id: theme });
    else await admin.updateEmailTheme({ theme_id: item.value.id, display_name: name, tsx_source: source });
    onSaved();
  });
  const testing = useAction(async () => {
    setSentTo(null);
    const sent = await admin.sendEmailPreview(renderInput(source));
    setSentTo(`${sent.subject} → ${sent.to}`);
  });

  const error = preview.state === 'error' ? preview.error : null;
  const editorError = sourceErrorOf(error) ?? sourceErrorOf(saving.error);
  const rendered = preview.state === 'ok' ? preview.rendered : null;
  const dirty = source !== item.value.tsx_source || name !== item.value.display_name || (item.kind !== 'theme' && theme !== item.value.theme_id);

  return (
    <div className="stack">
      <div className="row" style={{ alignItems: 'flex-end', flexWrap: 'wrap' }}>
        <label className="field" style={{ flex: 1 }}>
          <span>Name</span>
          <input type="text" value={name} onChange={(event) => setName(event.target.value)} aria-label="Name" />
        </label>
        {item.kind !== 'theme' ? (
          <label className="field">
            <span>Theme</span>
            <select
              aria-label="Theme"
              value={theme === null ? 'project' : theme === false ? 'none' : theme}
              onChange={(event) => setTheme(event.target.value === 'project' ? null : event.target.value === 'none' ? false : event.target.value)}
            >
              <option value="project">The project's theme</option>
              <option value="none">No theme</option>
              {themes.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.display_name}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <button type="button" className="button primary" onClick={() => void saving.run()} disabled={saving.pending || !dirty}>
          {saving.pending ? 'Saving…' : dirty ? 'Save' : 'Saved'}
        </button>
        <button type="button" className="button" onClick={() => void testing.run()} disabled={testing.pending}>
          {testing.pending ? 'Sending…' : 'Send a test to me'}
        </button>
      </div>
      <ErrorMessage error={saving.error} title="Could not save" />
      <ErrorMessage error={testing.error} title="Could not send the test" />
      {sentTo ? (
        <div className="alert alert-ok" role="status">
          Test sent: {sentTo}
        </div>
      ) : null}
      <div className="email-editor-panes">
        <div className="stack" style={{ minWidth: 0 }}>
          <Suspense fallback={<Loading label="Loading the editor…" />}>
            <CodeEditor value={source} onChange={setSource} error={editorError} label={`Source of ${item.value.display_name}`} />
          </Suspense>
          {item.kind === 'template' ? (
            <label className="field">
              <span>Variables (JSON)</span>
              <textarea
                aria-label="Variables"
                rows={4}
                className="code"
                value={variablesText}
                onChange={(event) => setVariablesText(event.target.value)}
                aria-invalid={variables === null}
              />
              {variables === null ? <span className="field-error">Not a JSON object: the preview uses the last valid variables.</span> : null}
            </label>
          ) : null}
        </div>
        <section className="stack" aria-label="Preview" style={{ minWidth: 0, overflowX: 'auto' }}>
          <div className="row" role="tablist" aria-label="Preview as">
            {(['desktop', 'mobile', 'text'] as const).map((v) => (
              <button
                key={v}
                type="button"
                role="tab"
                aria-selected={view === v}
                className={view === v ? 'button small primary' : 'button small'}
                onClick={() => setView(v)}
              >
                {v === 'desktop' ? 'Desktop' : v === 'mobile' ? 'Mobile' : 'Plain text'}
              </button>
            ))}
            <span className="muted small" aria-live="polite">
              {rendering ? 'Rendering…' : `For ${SAMPLE_USER} (a sample user)`}
            </span>
          </div>
          {error ? (
            <div className="alert alert-error" role="alert" aria-label="Rendering error">
              <strong>{editorError ? `Line ${editorError.line}` : 'Does not render'}</strong>
              <span>{editorError?.message ?? (error instanceof Error ? error.message : String(error))}</span>
            </div>
          ) : null}
          {rendered ? (
            <>
              <div className="small">
                <strong>Subject:</strong> <span data-testid="preview-subject">{rendered.subject ?? '(none)'}</span>
              </div>
              {view === 'text' ? (
                <pre className="code" aria-label="Plain text preview" style={{ whiteSpace: 'pre-wrap' }}>
                  {rendered.text}
                </pre>
              ) : (
                // The rendered email, isolated: a sandboxed frame without scripts or access to the console.
                <iframe
                  className="email-frame"
                  title="Email preview"
                  sandbox=""
                  srcDoc={rendered.html}
                  style={view === 'mobile' ? { width: 375, height: 640 } : { width: '100%', minWidth: 600, height: 560 }}
                />
              )}
            </>
          ) : null}
        </section>
      </div>
      {item.kind === 'draft' ? (
        <SendDraftCard admin={admin} draft={item.value} projectId={projectId} save={() => saving.run()} dirty={dirty} onSent={onSaved} />
      ) : null}
      <AiChatPanel
        admin={admin}
        contextType={item.kind === 'theme' ? 'email-theme' : item.kind === 'draft' ? 'email-draft' : 'email-template'}
        currentSource={source}
        onUse={setSource}
      />
    </div>
  );
}

/** A draft's recipients (all users, or picked ones) and when it goes: now, or at a time within 30 days. */
function SendDraftCard({
  admin,
  draft,
  projectId,
  save,
  dirty,
  onSent,
}: {
  admin: PageProps['admin'];
  draft: EmailDraft;
  projectId: string;
  save: () => Promise<boolean>;
  dirty: boolean;
  onSent: () => void;
}) {
  const [audience, setAudience] = useState<'all' | 'picked'>('all');
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [search, setSearch] = useState('');
  const [later, setLater] = useState(false);
  const [when, setWhen] = useState('');
  const [outcome, setOutcome] = useState<string | null>(null);
  const query = useDebounced(search.trim(), 300);
  const users = useQuery({ ...admin.usersQuery({ limit: 50, ...(query ? { query } : {}) }), enabled: audience === 'picked' }, admin.queryClient);
  const sending = useAction(async () => {
    setOutcome(null);
    // The server sends the stored draft: keep what is in the editor first.
    if (dirty && !(await save())) throw new Error('Fix the draft first: it could not be saved.');
    const scheduled = later && when ? new Date(when).getTime() : undefined;
    const result = await admin.sendEmail({
      ...(audience === 'all' ? { all_users: true as const } : { user_ids: [...picked] }),
      draft_id: draft.id,
      ...(scheduled !== undefined ? { scheduled_at_millis: scheduled } : {}),
    });
    onSent();
    setOutcome(
      result.scheduled_at_millis !== null
        ? `Scheduled for ${formatDate(result.scheduled_at_millis)}: ${result.results.length} recipient(s).`
        : `Queued for ${result.results.length} recipient(s).`,
    );
  });
  const toggle = (id: string) =>
    setPicked((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  return (
    <Card title="Send this draft">
      <div className="stack">
        {draft.sent_at_millis !== null ? <p className="muted small">Last sent {formatDate(draft.sent_at_millis)}.</p> : null}
        {draft.scheduled_at_millis !== null ? <p className="muted small">Scheduled for {formatDate(draft.scheduled_at_millis)}.</p> : null}
        <fieldset className="stack" style={{ border: 'none', padding: 0, margin: 0 }}>
          <legend className="small">Recipients</legend>
          <label className="row">
            <input type="radio" name="audience" checked={audience === 'all'} onChange={() => setAudience('all')} /> All users
          </label>
          <label className="row">
            <input type="radio" name="audience" checked={audience === 'picked'} onChange={() => setAudience('picked')} /> Picked users ({picked.size})
          </label>
        </fieldset>
        {audience === 'picked' ? (
          <div className="stack">
            <input
              type="search"
              aria-label="Search users"
              placeholder="Search by email or name"
              value={search}
              onChange={(event) => setSearch(event.target.value)}
            />
            <QueryView query={users} loadingLabel="Loading users…">
              {(page) =>
                page.items.length === 0 ? (
                  <p className="muted small">No users match.</p>
                ) : (
                  <ul className="plain-list" aria-label="Users to send to">
                    {page.items.map((user) => (
                      <li key={user.id}>
                        <label className="row">
                          <input type="checkbox" checked={picked.has(user.id)} onChange={() => toggle(user.id)} />
                          {user.primary_email ?? user.id} {user.display_name ? <span className="muted small">{user.display_name}</span> : null}
                        </label>
                      </li>
                    ))}
                  </ul>
                )
              }
            </QueryView>
          </div>
        ) : null}
        <label className="row">
          <input type="checkbox" checked={later} onChange={(event) => setLater(event.target.checked)} /> Send later
        </label>
        {later ? (
          <label className="field">
            <span>Send at (up to 30 days ahead)</span>
            <input type="datetime-local" aria-label="Send at" value={when} onChange={(event) => setWhen(event.target.value)} />
          </label>
        ) : null}
        <div className="row">
          <button
            type="button"
            className="button primary"
            onClick={() => void sending.run()}
            disabled={sending.pending || (audience === 'picked' && picked.size === 0) || (later && !when)}
          >
            {sending.pending ? 'Sending…' : later ? 'Schedule' : 'Send now'}
          </button>
          <Link href={`/projects/${projectId}/emails`}>Sent emails</Link>
        </div>
        <ErrorMessage error={sending.error} title="Could not send the draft" />
        {outcome ? (
          <div className="alert alert-ok" role="status">
            {outcome}
          </div>
        ) : null}
      </div>
    </Card>
  );
}
