import { describe, expect, it } from 'vitest';
import { useHarness } from '../../test/harness.js';

const h = useHarness();

describe('health and the internal project', () => {
  it('answers /health with the database state', async () => {
    const res = await h.get('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', database: 'ok' });
  });

  it('has the internal project after start, and an owner can sign up and create a project with keys', async () => {
    const project = await h.createProject();
    const current = await h.get('/projects/current', project.client());
    expect(current.status).toBe(200);
    expect(current.body.id).toBe(project.id);
    expect(project.publishableClientKey).toMatch(/^pck_/);
  });
});
