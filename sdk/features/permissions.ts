/**
 * Permissions: the ones a user holds (all levels), granting and revoking them and reading the
 * definitions (server), and defining them (admin).
 */
import type { LatchQuery } from '../cache.js';
import { AppCore } from '../core.js';
import { KnownErrors } from '../errors.js';
import type { RouterInputs, RouterOutputs } from '../transport.js';

/** One team permission a user holds (`id` is the permission's id). */
export type TeamPermission = RouterOutputs['permissions']['listTeamPermissions']['items'][number];
/** One project permission a user holds (`id` is the permission's id). */
export type ProjectPermission = RouterOutputs['permissions']['listProjectPermissions']['items'][number];
/** A team or project permission definition (system team permissions have `is_system_permission`). */
export type PermissionDefinition = RouterOutputs['permissions']['getTeamDefinition'];
/** A new custom permission: its id (lowercase letters, digits, `:` and `_`), description and the permissions it contains. */
export type PermissionDefinitionCreateInput = RouterInputs['permissions']['createTeamDefinition'];
/** A change of a custom permission: a new `id` (grants follow), description, or contained permissions. */
export type PermissionDefinitionUpdateInput = Omit<RouterInputs['permissions']['updateTeamDefinition'], 'permission_id'>;

/** The permissions a user holds. */
export abstract class PermissionsFeature extends AppCore {
  /**
   * Team permissions held in a team, as a cached query: the signed-in user's (client); server
   * code names the user with `userId`, or gets every member's grants without it. `recursive`
   * (default true) includes the permissions contained in those granted.
   *
   * @example
   * app.subscribe(() => app.teamPermissionsQuery(team.id), (state) => console.log(state.data?.map((p) => p.id)));
   */
  teamPermissionsQuery(teamId: string, options: { userId?: string; recursive?: boolean } = {}): LatchQuery<TeamPermission[]> {
    const asSession = this.sessionFor(options.userId, false);
    const userId = options.userId ?? (asSession ? 'me' : undefined);
    const input = { team_id: teamId, ...(userId === undefined ? {} : { user_id: userId }), recursive: options.recursive ?? true };
    return this.listQuery(asSession, 'permissions.listTeamPermissions', input, (context) =>
      this.trpc.permissions.listTeamPermissions.query(input, { context }),
    );
  }

  /**
   * The permissions held in a team (default: the signed-in user's), recursively by default:
   * `recursive: false` lists only the direct grants.
   *
   * @example
   * const ids = (await app.listTeamPermissions(team.id)).map((p) => p.id); // ['$invite_members', 'docs:read', …]
   */
  async listTeamPermissions(teamId: string, options: { userId?: string; recursive?: boolean } = {}): Promise<TeamPermission[]> {
    return this.queryClient.fetchQuery(this.teamPermissionsQuery(teamId, options));
  }

  /**
   * Project permissions held, as a cached query: the signed-in user's (client); server code names
   * the user with `userId`, or gets every user's grants without it.
   *
   * @example
   * app.subscribe(() => app.projectPermissionsQuery(), (state) => console.log(state.data));
   */
  projectPermissionsQuery(options: { userId?: string; recursive?: boolean } = {}): LatchQuery<ProjectPermission[]> {
    const asSession = this.sessionFor(options.userId, false);
    const userId = options.userId ?? (asSession ? 'me' : undefined);
    const input = { ...(userId === undefined ? {} : { user_id: userId }), recursive: options.recursive ?? true };
    return this.listQuery(asSession, 'permissions.listProjectPermissions', input, (context) =>
      this.trpc.permissions.listProjectPermissions.query(input, { context }),
    );
  }

  /**
   * The project permissions held (default: the signed-in user's), recursively by default.
   *
   * @example
   * const ids = (await app.listProjectPermissions()).map((p) => p.id);
   */
  async listProjectPermissions(options: { userId?: string; recursive?: boolean } = {}): Promise<ProjectPermission[]> {
    return this.queryClient.fetchQuery(this.projectPermissionsQuery(options));
  }

  /**
   * Whether a user (default: the signed-in user) holds a permission, directly or through any
   * chain of permissions that contain it: in a team with `teamId`, else in the project. Reads the
   * cached recursive list, so checking several permissions costs one request.
   *
   * @example
   * if (await app.hasPermission('$invite_members', { teamId: team.id })) showInviteButton();
   * const canExport = await server.hasPermission('reports:export', { userId: user.id });
   */
  async hasPermission(permissionId: string, options: { teamId?: string; userId?: string } = {}): Promise<boolean> {
    const scope = { userId: options.userId ?? 'me', recursive: true };
    const held = options.teamId === undefined ? await this.listProjectPermissions(scope) : await this.listTeamPermissions(options.teamId, scope);
    return held.some((permission) => permission.id === permissionId);
  }

  /**
   * Asks the server to confirm that a user (default: the signed-in user) holds a project
   * permission, directly or through a containing one; throws `KnownErrors.ProjectPermissionRequired`
   * when they do not (and `PermissionNotFound` for an id no definition has). Never cached: use it
   * to gate an action, and {@link PermissionsFeature.hasPermission} to decide what to show.
   *
   * @example
   * await server.requireProjectPermission('reports:export', { userId: user.id }); // throws if lacking
   */
  async requireProjectPermission(permissionId: string, options: { userId?: string } = {}): Promise<ProjectPermission> {
    const input = { user_id: options.userId ?? 'me', permission_id: permissionId };
    return this.call((context) => this.trpc.permissions.requireProjectPermission.query(input, { context }), { session: this.sessionFor(options.userId) });
  }
}

/** Grants, and the definitions read by server code. */
export abstract class ServerPermissionsFeature extends AppCore {
  // ─── Permission grants ─────────────────────────────────────────────────────────────────────────

  /**
   * Grants a team permission (system or custom) to a member of the team; granting it again
   * changes nothing.
   *
   * @example
   * await server.grantTeamPermission(team.id, user.id, '$invite_members');
   */
  async grantTeamPermission(teamId: string, userId: string, permissionId: string): Promise<TeamPermission> {
    const input = { team_id: teamId, user_id: userId, permission_id: permissionId };
    return this.mutate(['permissions.listTeamPermissions'], (context) => this.trpc.permissions.grantTeamPermission.mutate(input, { context }), {
      session: userId === 'me',
    });
  }

  /**
   * Revokes a team permission granted directly to a member (revoking one not granted changes
   * nothing; permissions held through a containing one stay until that one is revoked).
   *
   * @example
   * await server.revokeTeamPermission(team.id, user.id, '$invite_members');
   */
  async revokeTeamPermission(teamId: string, userId: string, permissionId: string): Promise<void> {
    const input = { team_id: teamId, user_id: userId, permission_id: permissionId };
    await this.mutate(['permissions.listTeamPermissions'], (context) => this.trpc.permissions.revokeTeamPermission.mutate(input, { context }), {
      session: userId === 'me',
    });
  }

  /**
   * Grants a project permission to a user.
   *
   * @example
   * await server.grantProjectPermission(user.id, 'reports:export');
   */
  async grantProjectPermission(userId: string, permissionId: string): Promise<ProjectPermission> {
    const input = { user_id: userId, permission_id: permissionId };
    return this.mutate(['permissions.listProjectPermissions'], (context) => this.trpc.permissions.grantProjectPermission.mutate(input, { context }), {
      session: userId === 'me',
    });
  }

  /**
   * Revokes a project permission granted directly to a user.
   *
   * @example
   * await server.revokeProjectPermission(user.id, 'reports:export');
   */
  async revokeProjectPermission(userId: string, permissionId: string): Promise<void> {
    const input = { user_id: userId, permission_id: permissionId };
    await this.mutate(['permissions.listProjectPermissions'], (context) => this.trpc.permissions.revokeProjectPermission.mutate(input, { context }), {
      session: userId === 'me',
    });
  }

  // ─── Permission definitions (read; AdminApp writes them) ───────────────────────────────────────

  /**
   * The team permission definitions as a cached query, system permissions first.
   *
   * @example
   * server.subscribe(() => server.teamPermissionDefinitionsQuery(), (state) => console.log(state.data));
   */
  teamPermissionDefinitionsQuery(): LatchQuery<PermissionDefinition[]> {
    return this.listQuery(false, 'permissions.listTeamDefinitions', {}, (context) => this.trpc.permissions.listTeamDefinitions.query({}, { context }));
  }

  /**
   * The team permission definitions: the six system permissions (`$update_team`, …), then the
   * project's own.
   *
   * @example
   * const ids = (await server.listTeamPermissionDefinitions()).map((d) => d.id);
   */
  async listTeamPermissionDefinitions(): Promise<PermissionDefinition[]> {
    return this.queryClient.fetchQuery(this.teamPermissionDefinitionsQuery());
  }

  /**
   * One team permission definition (a system one included), or null when there is none.
   * A project permission's id throws WRONG_PERMISSION_SCOPE.
   *
   * @example
   * const editor = await server.getTeamPermissionDefinition('editor');
   */
  async getTeamPermissionDefinition(permissionId: string): Promise<PermissionDefinition | null> {
    const input = { permission_id: permissionId };
    return this.queryClient.fetchQuery(
      this.findQuery(false, 'permissions.getTeamDefinition', input, (context) => this.trpc.permissions.getTeamDefinition.query(input, { context }), [
        KnownErrors.PermissionNotFound,
      ]),
    );
  }

  /**
   * The project permission definitions as a cached query.
   *
   * @example
   * server.subscribe(() => server.projectPermissionDefinitionsQuery(), (state) => console.log(state.data));
   */
  projectPermissionDefinitionsQuery(): LatchQuery<PermissionDefinition[]> {
    return this.listQuery(false, 'permissions.listProjectDefinitions', {}, (context) => this.trpc.permissions.listProjectDefinitions.query({}, { context }));
  }

  /**
   * The project permission definitions.
   *
   * @example
   * const definitions = await server.listProjectPermissionDefinitions();
   */
  async listProjectPermissionDefinitions(): Promise<PermissionDefinition[]> {
    return this.queryClient.fetchQuery(this.projectPermissionDefinitionsQuery());
  }

  /**
   * One project permission definition, or null when there is none. A team permission's id throws
   * WRONG_PERMISSION_SCOPE.
   *
   * @example
   * const definition = await server.getProjectPermissionDefinition('reports:export');
   */
  async getProjectPermissionDefinition(permissionId: string): Promise<PermissionDefinition | null> {
    const input = { permission_id: permissionId };
    return this.queryClient.fetchQuery(
      this.findQuery(false, 'permissions.getProjectDefinition', input, (context) => this.trpc.permissions.getProjectDefinition.query(input, { context }), [
        KnownErrors.PermissionNotFound,
      ]),
    );
  }
}

/** Defining team and project permissions (admin). */
export abstract class AdminPermissionsFeature extends AppCore {
  /**
   * Defines a custom team permission, optionally containing others (system ones included): a
   * member granted it holds those too. Throws PERMISSION_ID_ALREADY_EXISTS, or
   * CONTAINED_PERMISSION_NOT_FOUND for a contained id not defined in the team scope.
   *
   * @example
   * await admin.createTeamPermissionDefinition({ id: 'docs:read' });
   * await admin.createTeamPermissionDefinition({ id: 'editor', description: 'Edits docs', contained_permission_ids: ['docs:read', '$read_members'] });
   */
  async createTeamPermissionDefinition(input: PermissionDefinitionCreateInput): Promise<PermissionDefinition> {
    return this.mutate(['permissions.'], (context) => this.trpc.permissions.createTeamDefinition.mutate(input, { context }));
  }

  /**
   * Changes a custom team permission: renaming it keeps its grants and the permissions that
   * contain it; a change of contained permissions that would make a cycle is refused.
   *
   * @example
   * await admin.updateTeamPermissionDefinition('editor', { contained_permission_ids: ['docs:read', 'docs:write'] });
   */
  async updateTeamPermissionDefinition(permissionId: string, patch: PermissionDefinitionUpdateInput): Promise<PermissionDefinition> {
    return this.mutate(['permissions.'], (context) =>
      this.trpc.permissions.updateTeamDefinition.mutate({ ...patch, permission_id: permissionId }, { context }),
    );
  }

  /**
   * Deletes a custom team permission with its grants (system permissions cannot be deleted).
   *
   * @example
   * await admin.deleteTeamPermissionDefinition('editor');
   */
  async deleteTeamPermissionDefinition(permissionId: string): Promise<void> {
    await this.mutate(['permissions.'], (context) => this.trpc.permissions.deleteTeamDefinition.mutate({ permission_id: permissionId }, { context }));
  }

  /**
   * Defines a project permission, optionally containing other project permissions.
   *
   * @example
   * await admin.createProjectPermissionDefinition({ id: 'reports:export', description: 'Export reports' });
   */
  async createProjectPermissionDefinition(input: PermissionDefinitionCreateInput): Promise<PermissionDefinition> {
    return this.mutate(['permissions.'], (context) => this.trpc.permissions.createProjectDefinition.mutate(input, { context }));
  }

  /**
   * Changes a project permission (rename, description, contained permissions).
   *
   * @example
   * await admin.updateProjectPermissionDefinition('reports:export', { description: 'Export reports as CSV' });
   */
  async updateProjectPermissionDefinition(permissionId: string, patch: PermissionDefinitionUpdateInput): Promise<PermissionDefinition> {
    return this.mutate(['permissions.'], (context) =>
      this.trpc.permissions.updateProjectDefinition.mutate({ ...patch, permission_id: permissionId }, { context }),
    );
  }

  /**
   * Deletes a project permission with its grants.
   *
   * @example
   * await admin.deleteProjectPermissionDefinition('reports:export');
   */
  async deleteProjectPermissionDefinition(permissionId: string): Promise<void> {
    await this.mutate(['permissions.'], (context) => this.trpc.permissions.deleteProjectDefinition.mutate({ permission_id: permissionId }, { context }));
  }
}
