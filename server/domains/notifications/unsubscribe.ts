/**
 * What the one-click unsubscribe route (server/http/unsubscribe.ts) does with a link: check it,
 * say what it turns off, and turn it off. Works without signing in: the link's signature is the
 * credential, and it names exactly one user and one category of one project.
 */
import type { Deps } from '../../deps.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import { findUser } from '../users/queries.js';
import { findCategoryById } from './categories.js';
import { setPreference } from './preferences.js';
import { projectNameOfTenancy } from './queries.js';
import { type UnsubscribeTarget, verifyUnsubscribeToken } from './unsubscribe-links.js';

export interface UnsubscribeDescription {
  projectName: string;
  categoryName: string;
}

async function describe(deps: Deps, target: UnsubscribeTarget): Promise<UnsubscribeDescription> {
  const [projectName, category, user] = await Promise.all([
    projectNameOfTenancy(deps.db, target.tenancyId),
    findCategoryById(deps.db, target.tenancyId, target.categoryId),
    findUser(deps.db, target.tenancyId, target.userId),
  ]);
  // A signed link whose project or user is gone, or whose category was deleted or can no longer
  // be turned off, has nothing left to do.
  if (projectName === undefined || !user || !category?.can_disable) throw new KnownErrors.UnsubscribeLinkInvalid();
  return { projectName, categoryName: category.name };
}

function targetOf(deps: Deps, token: unknown): UnsubscribeTarget {
  const target = verifyUnsubscribeToken(deps, token);
  if (!target) throw new KnownErrors.UnsubscribeLinkInvalid();
  return target;
}

/** GET: what the link would turn off (changes nothing: mail scanners open links). */
export async function describeUnsubscribe(deps: Deps, token: unknown): Promise<UnsubscribeDescription> {
  return describe(deps, targetOf(deps, token));
}

/** POST (RFC 8058 one-click, or the page's button): turns the category off for the link's user. */
export async function unsubscribe(deps: Deps, token: unknown): Promise<UnsubscribeDescription> {
  const target = targetOf(deps, token);
  const description = await describe(deps, target);
  await deps.db.transaction().execute((trx) => setPreference(trx, target.tenancyId, target.userId, target.categoryId, false));
  return description;
}
