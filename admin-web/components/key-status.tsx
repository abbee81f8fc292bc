/** A key's status (project key sets, user and team API keys): revoked wins over expired. */
export function KeyStatusBadge({ revokedAtMillis, expiresAtMillis }: { revokedAtMillis: number | null; expiresAtMillis: number | null }) {
  if (revokedAtMillis !== null) return <span className="badge danger">revoked</span>;
  if (expiresAtMillis !== null && expiresAtMillis < Date.now()) return <span className="badge warn">expired</span>;
  return <span className="badge ok">active</span>;
}
