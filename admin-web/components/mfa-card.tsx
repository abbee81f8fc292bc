/**
 * A user's two-factor authentication on the console's user page: on or off, recovery codes left
 * and when one was last used (a use the user did not make is worth a look), and the owner's reset
 * for a user who lost their authenticator. The reset is confirmed by typing the user's email (or
 * id): it removes a security control, so it should not be one stray click.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { ServerUser } from '../../sdk/index.js';
import type { PageProps } from '../routes/page-props.js';
import { Card, ErrorMessage, Field, Modal, QueryView, formatDate, useAction } from './ui.js';

export function MfaCard({ admin, user }: { admin: PageProps['admin']; user: ServerUser }) {
  const status = useQuery(admin.mfaStatusQuery({ userId: user.id }), admin.queryClient);
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const expected = user.primary_email ?? user.id;
  const reset = useAction(async () => {
    const result = await admin.disableTotp({ userId: user.id });
    if (result.status === 'error') throw result.error;
    setOpen(false);
    setTyped('');
  });
  return (
    <Card title="Two-factor authentication">
      <QueryView query={status} loadingLabel="Loading two-factor status…">
        {(mfa) => (
          <div className="stack">
            <p>
              {mfa.requires_totp_mfa ? <span className="badge ok">TOTP on</span> : <span className="badge">off</span>}{' '}
              {mfa.totp_enrollment_pending ? <span className="badge">enrolment started</span> : null}
            </p>
            {mfa.requires_totp_mfa ? (
              <p data-testid="mfa-recovery-codes">
                {mfa.recovery_codes_remaining} of {mfa.recovery_codes_total} recovery codes left
                {mfa.last_recovery_code_used_at_millis !== null ? `; one was last used ${formatDate(mfa.last_recovery_code_used_at_millis)}` : '; none used'}.
              </p>
            ) : null}
            {mfa.requires_totp_mfa ? (
              <div className="actions">
                <button type="button" className="button danger" onClick={() => setOpen(true)}>
                  Reset two-factor authentication
                </button>
              </div>
            ) : null}
          </div>
        )}
      </QueryView>
      {reset.done ? <p className="muted">Two-factor authentication was reset.</p> : null}
      <Modal title="Reset two-factor authentication?" open={open} onClose={() => setOpen(false)}>
        <form
          className="stack"
          onSubmit={(event) => {
            event.preventDefault();
            if (typed.trim() === expected) void reset.run();
          }}
        >
          <p>
            This turns two-factor authentication off for <strong>{expected}</strong> and deletes their authenticator secret and recovery codes. They can then
            sign in with their first factor alone until they set it up again. Do this only after you have checked who is asking.
          </p>
          <Field label={`Type ${user.primary_email ? 'the email' : 'the user id'} to confirm`}>
            {(props) => <input {...props} value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" />}
          </Field>
          <ErrorMessage error={reset.error} title="Could not reset" />
          <div className="actions end">
            <button type="button" className="button" onClick={() => setOpen(false)}>
              Cancel
            </button>
            <button type="submit" className="button danger" disabled={reset.pending || typed.trim() !== expected}>
              {reset.pending ? 'Working…' : 'Reset'}
            </button>
          </div>
        </form>
      </Modal>
    </Card>
  );
}
