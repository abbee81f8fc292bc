import type express from 'express';
import { sql } from 'kysely';
import type { Deps } from '../deps.js';

/** GET /health: 200 when the database answers, 503 otherwise (for load balancers and orchestrators). */
export function mountHealth(app: express.Express, deps: Deps): void {
  app.get('/health', async (_req, res) => {
    try {
      await sql`select 1`.execute(deps.db);
      res.json({ status: 'ok', database: 'ok' });
    } catch {
      res.status(503).json({ status: 'error', database: 'unreachable' });
    }
  });
}
