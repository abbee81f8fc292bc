import { KnownErrors } from '../../../../contract/errors/known-errors.js';
import { type CompiledScript, compileOwnerSources, type OwnerSources, ownerPosition, SandboxCompileError } from './compile.js';
import { runInSandbox, SandboxRuntimeError } from './engine.js';
import { renderTree, TreeValidationError } from './host-render.js';

export { SandboxCompileError } from './compile.js';
export { SANDBOX_LIMITS, warmUpSandbox } from './engine.js';

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

/**
 * Renders owner TSX end to end: compile (cached by source hash), run in QuickJS with limits, then
 * validate and render the returned tree on the host.
 * @throws SandboxRenderError, never anything else the owner's code caused.
 */
export async function renderOwnerEmail(sources: OwnerSources, input: SandboxInput): Promise<SandboxRendered> {
  const compiled = await compileSources(sources);
  let output: string;
  try {
    output = await runInSandbox(compiled.script, JSON.stringify(input));
  } catch (error) {
    if (error instanceof SandboxRuntimeError) {
      const position = error.line === null ? null : ownerPosition(compiled, error.line, error.column);
      throw new SandboxRenderError(position?.file === 'theme' ? `Theme: ${error.message}` : error.message, position?.line ?? null, 'run');
    }
    throw error;
  }
  const { tree, meta } = JSON.parse(output) as { tree: unknown; meta: { subject: string | null; notificationCategory: string | null } };
  try {
    const { html, text } = await renderTree(tree);
    return {
      html,
      text,
      // One header line, whatever the owner wrote.
      subject: meta.subject === null ? null : meta.subject.replace(/[\r\n]+/g, ' ').trim(),
      notificationCategory: meta.notificationCategory,
    };
  } catch (error) {
    if (error instanceof TreeValidationError) throw new SandboxRenderError(error.message, null, 'validate');
    throw error;
  }
}
