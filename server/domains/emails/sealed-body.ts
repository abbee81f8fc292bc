import { decrypt, deriveKey, encrypt } from '../../crypto/encryption.js';

/**
 * Email bodies at rest. A queued email carries live secrets (reset and magic-link codes, invitation
 * links), and those codes are stored hashed everywhere else; a readable body in email_outbox would
 * undo that for anyone who can read the table or a backup. So html and text are sealed with
 * AES-256-GCM under their own sub-key of LATCH_SECRET, bound to the email's id (a body cannot be
 * moved to another row), and opened only to send the email and to show it to the project's owner.
 */
const keys = new Map<string, Buffer>();

function bodyKey(rootSecret: string): Buffer {
  let key = keys.get(rootSecret);
  if (!key) {
    key = deriveKey(rootSecret, 'email-bodies');
    keys.set(rootSecret, key);
  }
  return key;
}

export interface EmailBody {
  html: string;
  text: string;
}

export function sealEmailBody(rootSecret: string, emailId: string, body: EmailBody): EmailBody {
  const key = bodyKey(rootSecret);
  return { html: encrypt(key, body.html, `email-html:${emailId}`), text: encrypt(key, body.text, `email-text:${emailId}`) };
}

/** Opens a sealed body; throws when it was tampered with or sealed under another secret. */
export function openEmailBody(rootSecret: string, emailId: string, sealed: EmailBody): EmailBody {
  const key = bodyKey(rootSecret);
  return { html: decrypt(key, sealed.html, `email-html:${emailId}`), text: decrypt(key, sealed.text, `email-text:${emailId}`) };
}
