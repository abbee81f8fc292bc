import { KnownErrors } from '../../../../contract/errors/known-errors.js';
import type { ProjectRecord, Tenancy } from '../../../access/context.js';
import type { Executor } from '../../../db/executor.js';
import { renderOwnerEmail, SandboxRenderError, type SandboxInput, type SandboxRendered, toRenderingError } from '../sandbox/index.js';
import { BUILT_IN_THEMES, DEFAULT_LIGHT_THEME_ID } from './default-sources.js';
import * as q from './queries.js';

/**
 * Which theme wraps an email, and rendering owner sources with it. The wire's `theme_id` is a
 * uuid, `false` (no theme) or `null` (the project's `email_theme`); rows keep it as theme_mode +
 * theme_id.
 */

export type ThemeChoice = string | false | null;

export function toThemeColumns(choice: ThemeChoice): { theme_mode: q.ThemeMode; theme_id: string | null } {
  if (choice === null) return { theme_mode: 'project', theme_id: null };
  if (choice === false) return { theme_mode: 'none', theme_id: null };
  return { theme_mode: 'custom', theme_id: choice };
}

export function fromThemeColumns(row: { theme_mode: q.ThemeMode; theme_id: string | null }): ThemeChoice {
  if (row.theme_mode === 'project') return null;
  if (row.theme_mode === 'none') return false;
  return row.theme_id;
}

/** The project's theme: its `email_theme`, or the built-in light one. */
export function projectThemeId(project: Pick<ProjectRecord, 'config'>): string {
  return project.config.email_theme ?? DEFAULT_LIGHT_THEME_ID;
}

/** A theme's source: the project's row (its own theme or its edit of a built-in), else the built-in. */
export async function findThemeSource(db: Executor, tenancy: Tenancy, id: string): Promise<{ id: string; display_name: string; tsx_source: string } | null> {
  const row = await q.findTheme(db, tenancy.id, id);
  if (row) return row;
  const builtIn = BUILT_IN_THEMES.find((t) => t.id === id);
  return builtIn ? { id: builtIn.id, display_name: builtIn.displayName, tsx_source: builtIn.tsxSource } : null;
}

/**
 * The theme source for a choice, or null for none. A project whose `email_theme` points at a
 * theme that is gone renders with the built-in light theme (emails keep going out); an explicit
 * theme id that does not exist is EMAIL_CONTENT_NOT_FOUND.
 */
export async function themeSourceFor(db: Executor, tenancy: Tenancy, project: Pick<ProjectRecord, 'config'>, choice: ThemeChoice): Promise<string | null> {
  if (choice === false) return null;
  if (choice === null) {
    const theme = (await findThemeSource(db, tenancy, projectThemeId(project))) ?? (await findThemeSource(db, tenancy, DEFAULT_LIGHT_THEME_ID));
    return theme!.tsx_source;
  }
  const theme = await findThemeSource(db, tenancy, choice);
  if (!theme) throw new KnownErrors.EmailContentNotFound('theme', choice);
  return theme.tsx_source;
}

/** A sample recipient for previews and checks: no real user's data goes into owner code until it is sent to them. */
export function sampleInput(project: Pick<ProjectRecord, 'displayName' | 'logoUrl' | 'fullLogoUrl'>, variables: Record<string, unknown>): SandboxInput {
  return {
    user: { displayName: 'Ada Lovelace', primaryEmail: 'ada@example.com' },
    project: { displayName: project.displayName },
    variables,
    // A preview's link goes nowhere real: it only has to look like one in the theme.
    unsubscribeLink: 'https://example.com/unsubscribe',
    projectLogos: { logoUrl: project.logoUrl, fullLogoUrl: project.fullLogoUrl },
  };
}

/**
 * renderOwnerEmail for an owner at the console or the API (a preview, the check of a theme being
 * saved, the up-front check of a send), with its failure as the catalogued EMAIL_RENDERING_ERROR
 * (400, with the line). One project's interactive renders run one at a time (queued in order, at
 * most INTERACTIVE_RENDER_QUEUE waiting, then RATE_LIMITED): a project previewing hostile
 * templates holds at most one render thread for up to its 1 s limit each, then rests as long
 * (so at most half a core), and the other threads and cores stay with other tenants (issue 17:
 * their /users/me p99 within 2× of an idle run).
 * Batch sends and built-in emails render through their own paths and lanes, not this queue.
 */
export async function renderOrThrow(tenancyId: string, template: string, theme: string | null, input: SandboxInput): Promise<SandboxRendered> {
  return oneAtATime(tenancyId, async () => {
    try {
      return await renderOwnerEmail({ template, theme }, input);
    } catch (error) {
      if (error instanceof SandboxRenderError) throw toRenderingError(error);
      throw error;
    }
  });
}

/** Interactive renders one project may have waiting behind the one under way. */
export const INTERACTIVE_RENDER_QUEUE = 4;

const interactive = new Map<string, { tail: Promise<void>; count: number }>();

async function oneAtATime<T>(key: string, job: () => Promise<T>): Promise<T> {
  let slot = interactive.get(key);
  if (!slot) {
    slot = { tail: Promise.resolve(), count: 0 };
    interactive.set(key, slot);
  }
  if (slot.count > INTERACTIVE_RENDER_QUEUE) throw new KnownErrors.RateLimited(1);
  slot.count++;
  const previous = slot.tail;
  let done!: () => void;
  slot.tail = new Promise<void>((resolve) => (done = resolve));
  let hold = 0;
  try {
    await previous;
    const started = performance.now();
    try {
      return await job();
    } catch (error) {
      // A render that ran into its limits (the 1 s deadline, memory) keeps the project's turn as long
      // again before the next one starts: a loop of hostile previews uses half a core, not a whole one.
      const spent = performance.now() - started;
      if (spent >= HOSTILE_RENDER_MILLIS) hold = spent;
      throw error;
    }
  } finally {
    // The answer goes out now; only the project's next render waits.
    const release = () => {
      done();
      if (--slot.count === 0) interactive.delete(key);
    };
    if (hold > 0) setTimeout(release, hold).unref();
    else release();
  }
}

/** A failed interactive render that took this long ran into its limits (a plain error fails in ms). */
const HOSTILE_RENDER_MILLIS = 500;
