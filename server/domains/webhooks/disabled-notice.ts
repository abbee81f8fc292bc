import { DEFAULT_BRANCH_ID, INTERNAL_PROJECT_ID } from '../../../contract/config/project-config.js';
import type { Executor } from '../../db/executor.js';
import type { Deps } from '../../deps.js';
import { queueEmail } from '../emails/service.js';
import * as q from './queries.js';

/**
 * The email that tells a project's owners one of its webhook endpoints was disabled (it failed
 * for days with no success in between). Queued in the transaction that disables the endpoint, so
 * it goes out exactly when the disabling commits, once per disabling (markEndpointFailing only
 * disables an enabled endpoint). Sent from the internal project, whose users the owners are,
 * through the deployment's SMTP server, to each owner's verified primary address.
 *
 * The mail limits are not counted: the email is caused by the deployment, not by a request, and
 * at most one goes out per endpoint per 5 days; an owner can only reach their own proven inbox.
 */
export async function emailOwnersOfDisabledEndpoint(trx: Executor, deps: Deps, tenancyId: string, endpointId: string, reason: string): Promise<number> {
  const notice = await q.findDisabledEndpointNotice(trx, tenancyId, endpointId);
  if (!notice || notice.ownerEmails.length === 0) return 0;
  const sender = {
    tenancy: { id: notice.internal.tenancyId, projectId: INTERNAL_PROJECT_ID, branchId: DEFAULT_BRANCH_ID },
    project: { displayName: notice.internal.displayName, logoUrl: notice.internal.logoUrl, fullLogoUrl: notice.internal.fullLogoUrl },
    type: 'server' as const,
  };
  const email = {
    type: 'webhook-endpoint-disabled' as const,
    link: `${deps.baseUrl()}/projects/${encodeURIComponent(notice.projectId)}/webhooks`,
    projectDisplayName: notice.projectDisplayName,
    endpoint: endpointLabel(notice.url),
    reason,
  };
  for (const to of notice.ownerEmails) await queueEmail(trx, deps, sender, to, email, { limitedByCaller: true });
  return notice.ownerEmails.length;
}

/** The endpoint by origin and path: its query string or fragment may hold the receiver's own token. */
export function endpointLabel(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url.split(/[?#]/)[0]!;
  }
}
