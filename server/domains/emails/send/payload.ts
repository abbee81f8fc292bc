/** One send-email job: what to render (fixed at request time) and for whom (a batch of recipients). */
export interface SendBatchPayload {
  tenancy_id: string;
  project_id: string;
  branch_id: string;
  content: {
    /** Owner TSX (template or draft) and its theme, or raw html. */
    template: string | null;
    theme: string | null;
    html: string | null;
    variables: Record<string, unknown>;
    /** The request's subject (overrides the template's `<Subject>`), or null. */
    subject: string | null;
    /** The category every recipient's preference is checked against. */
    category: string;
    template_id: string | null;
    draft_id: string | null;
  };
  recipients: { user_id: string; email_id: string }[];
  /** For a send scheduled for later: its row in email_scheduled_sends (the first batch to run marks it started). */
  scheduled_send_id?: string;
}

export function parseSendBatchPayload(payload: unknown): SendBatchPayload {
  const p = payload as Partial<SendBatchPayload> | null;
  if (!p || typeof p.tenancy_id !== 'string' || !p.content || !Array.isArray(p.recipients)) throw new Error('not a send-email batch');
  return p as SendBatchPayload;
}
