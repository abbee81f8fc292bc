import { describe, expect, it } from 'vitest';
import { allowedChildren, reachable } from './permission-graph.js';

describe('permission nesting', () => {
  const definitions = [
    { id: 'admin', contained_permission_ids: ['editor', '$update_team'] },
    { id: 'editor', contained_permission_ids: ['viewer'] },
    { id: 'viewer', contained_permission_ids: [] },
    { id: 'billing', contained_permission_ids: [] },
    { id: '$update_team', contained_permission_ids: [] },
  ];

  it('follows containment transitively', () => {
    expect([...reachable(definitions, 'admin')].sort()).toEqual(['$update_team', 'admin', 'editor', 'viewer']);
  });

  it('never offers a child that would close a cycle (or the permission itself)', () => {
    expect(allowedChildren(definitions, 'viewer').sort()).toEqual(['$update_team', 'billing']);
    expect(allowedChildren(definitions, 'editor').sort()).toEqual(['$update_team', 'billing', 'viewer']);
    expect(allowedChildren(definitions, 'admin').sort()).toEqual(['$update_team', 'billing', 'editor', 'viewer']);
  });
});
