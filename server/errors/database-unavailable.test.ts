import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { toWireError } from './wire.js';

/** A database that cannot be reached is a catalogued, retryable 503, never a 500 (issue 21). */
describe('DATABASE_UNAVAILABLE', () => {
  const cases: [string, unknown][] = [
    ['connection refused', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6432'), { code: 'ECONNREFUSED' })],
    ['PostgreSQL shutting down', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['PostgreSQL starting', Object.assign(new Error('the database system is starting up'), { code: '57P03' })],
    ['PgBouncer query_wait_timeout', Object.assign(new Error('query_wait_timeout'), { code: '08P01' })],
    ['a cut connection', new Error('Connection terminated unexpectedly')],
    ['no pool connection in time', new Error('timeout exceeded when trying to connect')],
    ['wrapped by tRPC', new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) })],
  ];
  for (const [name, error] of cases)
    it(name, () => {
      const wire = toWireError(error, 'req_1');
      expect(wire.status).toBe(503);
      expect(wire.body).toMatchObject({ code: 'DATABASE_UNAVAILABLE', details: { retry_after_seconds: 2 } });
    });

  it('a query error is still a 500', () => {
    const wire = toWireError(Object.assign(new Error('syntax error'), { code: '42601' }), 'req_1');
    expect(wire.status).toBe(500);
  });
});
