/** The three access levels a request can claim with `x-latch-access-type` (spec section 6). */
export type AccessType = 'client' | 'server' | 'admin';
export const ACCESS_TYPES: readonly AccessType[] = ['client', 'server', 'admin'];
