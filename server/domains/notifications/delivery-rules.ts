import type { Executor } from '../../db/executor.js';
import type { Tenancy } from '../../access/context.js';

/**
 * What the email pipeline asks before it sends a message in a notification category to a user: whether
 * the user still accepts that category, and the one-click unsubscribe link and RFC 8058 headers the
 * message must carry. The seam between sending (send-email, built-in emails) and notification
 * preferences (issue 17 item 4).
 *
 * PLACEHOLDER on main while the notifications branch is in flight: it accepts everything and adds no
 * link. The notifications branch replaces the body; the signature is the contract both branches code to.
 */
export interface CategoryDecision {
  /** false when the user turned this category off (never false for a category that cannot be disabled). */
  send: boolean;
  /** The signed one-click unsubscribe URL for this user and category, or null for a transactional one. */
  unsubscribeUrl: string | null;
  /** `List-Unsubscribe` and `List-Unsubscribe-Post` when unsubscribeUrl is set, else {}. */
  headers: Record<string, string>;
}

export async function categoryDecision(_db: Executor, _tenancy: Tenancy, _userId: string | null, _categoryName: string | null): Promise<CategoryDecision> {
  return { send: true, unsubscribeUrl: null, headers: {} };
}
