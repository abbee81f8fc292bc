import { KnownErrors } from '../../../../contract/errors/known-errors.js';
import { type CompiledScript, compileOwnerSources, type OwnerSources, ownerPosition, SandboxCompileError } from './compile.js';
import { renderBatchInSandbox } from './engine.js';
import type { RenderItemError } from './render-protocol.js';

export { SandboxCompileError } from './compile.js';
export { SANDBOX_LIMITS, setRenderThreads } from './engine.js';

/** What a template or theme receives (Stack Auth's shapes, so sources carry over). */
export interface SandboxInput {
  user: { displayName: string | null } & Record<string, unknown>;
  project: { displayName: string } & Record<string, unknown>;
  variables: Record<string, unknown>;
  unsubscribeLink: string | null;
  projectLogos: { logoUrl: string | null; fullLogoUrl: string | null };
}

export interface SandboxRendered {
  html: string;
  text: string;
  subject: string | null;
  notificationCategory: string | null;
}

/** Why a render failed, for the editor: the message and, when known, the line in the owner's source. */
export class SandboxRenderError extends Error {
  constructor(
    message: string,
    readonly line: number | null,
    readonly stage: 'compile' | 'run' | 'validate',
  ) {
    super(line === null ? message : `${message} (line ${line})`);
  }
}

/** The catalogued 400 for a failed render, with the line for the editor. */
export function toRenderingError(error: SandboxRenderError): InstanceType<typeof KnownErrors.EmailRenderingError> {
  return new KnownErrors.EmailRenderingError(error.message, error.line);
}

/**
 * Compiles owner sources (cached by their hash), a compile error as a SandboxRenderError with the
 * owner's line: what saving a template checks.
 */
export async function compileSources(sources: OwnerSources): Promise<CompiledScript> {
  try {
    return await compileOwnerSources(sources);
  } catch (error) {
    if (error instanceof SandboxCompileError) {
      throw new SandboxRenderError(`${error.detail.file === 'theme' ? 'Theme' : 'Template'}: ${error.detail.message}`, error.detail.line, 'compile');
    }
    throw error;
  }
}

/** A SandboxRenderError for one failed recipient, with the owner's line when the bundle's maps to one. */
function toRenderError(compiled: CompiledScript, error: RenderItemError): SandboxRenderError {
  if (error.stage === 'validate') return new SandboxRenderError(error.message, null, 'validate');
  const position = error.line === null ? null : ownerPosition(compiled, error.line, error.column);
  return new SandboxRenderError(position?.file === 'theme' ? `Theme: ${error.message}` : error.message, position?.line ?? null, 'run');
}

/**
 * Renders owner TSX for many recipients: compiled once (cached by source hash), then one batch on
 * one render thread (one QuickJS runtime, a fresh context per recipient, so no recipient's render
 * can read another's data), each tree validated and rendered to HTML and text on that thread.
 * One entry per input, in order: a recipient whose render fails gets its SandboxRenderError and
 * the others are unaffected.
 * @throws SandboxRenderError only when the sources do not compile (then no recipient can render).
 */
export async function renderOwnerEmails(sources: OwnerSources, inputs: SandboxInput[]): Promise<(SandboxRendered | SandboxRenderError)[]> {
  const compiled = await compileSources(sources);
  const items = await renderBatchInSandbox(
    compiled.script,
    inputs.map((input) => JSON.stringify(input)),
  );
  return items.map((item) => {
    if (!item.ok) return toRenderError(compiled, item.error);
    const { html, text, subject, notificationCategory } = item.value.result!;
    // One header line, whatever the owner wrote.
    return { html, text, subject: subject === null ? null : subject.replace(/[\r\n]+/g, ' ').trim(), notificationCategory };
  });
}

/**
 * Renders owner TSX end to end for one recipient (a preview, a built-in email): see renderOwnerEmails.
 * @throws SandboxRenderError, never anything else the owner's code caused.
 */
export async function renderOwnerEmail(sources: OwnerSources, input: SandboxInput): Promise<SandboxRendered> {
  const [rendered] = await renderOwnerEmails(sources, [input]);
  if (rendered instanceof SandboxRenderError) throw rendered;
  return rendered!;
}
