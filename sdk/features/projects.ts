/**
 * The project: its public view (all levels), the projects of a signed-in owner of the internal
 * project (owner calls), and, for admins, changing it and its configuration. `AdminApp` overrides
 * `projectQuery` / `getProject` with the admin view.
 */
import type { LatchQuery } from '../cache.js';
import { defineQuery } from '../cache.js';
import { AppCore } from '../core.js';
import type { RouterInputs, RouterOutputs } from '../transport.js';

/** The current project, public view. */
export type ClientProject = RouterOutputs['projects']['current'];
/** A project as its owners see it (returned by the owner calls). */
export type AdminProject = RouterOutputs['projects']['adminCurrent'];
export type ProjectCreateInput = RouterInputs['projects']['createOwned'];
export type ProjectTransferInput = RouterInputs['projects']['transfer'];
/** A project's owners (the members of its owner team) and that team. */
export type ProjectOwners = RouterOutputs['projects']['listOwners'];
export type ProjectOwner = ProjectOwners['items'][number];
export type ProjectOwnerInvitation = RouterOutputs['projects']['listOwnerInvitations']['items'][number];
export type ProjectUpdateInput = RouterInputs['projects']['updateCurrent'];

/** The effective project configuration (the `config_string` of the wire, parsed). */
export type ProjectConfig = Record<string, unknown>;

function parseConfig(configString: string): ProjectConfig {
  return JSON.parse(configString) as ProjectConfig;
}

/** The current project, and the projects of a signed-in owner. */
export abstract class ProjectsFeature extends AppCore {
  /**
   * The current project as a cached query.
   *
   * @example
   * app.subscribe(() => app.projectQuery(), (state) => console.log(state.data?.display_name));
   */
  projectQuery(): LatchQuery<ClientProject> {
    return defineQuery(this.appKey('projects.current'), () => this.call((context) => this.trpc.projects.current.query({}, { context })));
  }

  /**
   * The current project: its name, logo and the configuration clients need (enabled sign-in methods…).
   *
   * @example
   * const { config } = await app.getProject();
   * if (config.sign_up_enabled) showSignUp();
   */
  async getProject(): Promise<ClientProject> {
    return this.queryClient.fetchQuery(this.projectQuery());
  }

  // ─── Owned projects (the internal project's signed-in owners) ──────────────────────────────────

  /**
   * The projects the signed-in owner's teams own, as a cached query. Internal project only.
   *
   * @example
   * app.subscribe(() => app.ownedProjectsQuery(), (state) => console.log(state.data));
   */
  ownedProjectsQuery(): LatchQuery<AdminProject[]> {
    return defineQuery(this.sessionKey('projects.listOwned'), async () => {
      const list = await this.call((context) => this.trpc.projects.listOwned.query({}, { context }), this.ownerCallOptions());
      return list.items;
    });
  }

  /**
   * The projects owned by the signed-in owner (a `ClientApp` of the `internal` project), or by
   * the owner of an `AdminApp`'s admin access token.
   *
   * @example
   * const internal = new ClientApp({ projectId: 'internal' });
   * await internal.signInWithPassword({ email, password });
   * const projects = await internal.listOwnedProjects();
   */
  async listOwnedProjects(): Promise<AdminProject[]> {
    return this.queryClient.fetchQuery(this.ownedProjectsQuery());
  }

  /**
   * Creates a project owned by one of the owner's teams (default: their personal team).
   *
   * @example
   * const project = await internal.createProject({ display_name: 'My app' });
   */
  async createProject(input: ProjectCreateInput): Promise<AdminProject> {
    return this.mutate(['projects.'], (context) => this.trpc.projects.createOwned.mutate(input, { context }), this.ownerCallOptions());
  }

  /**
   * Moves a project to another team of the owner.
   *
   * @example
   * await internal.transferProject({ project_id: project.id, new_team_id: teamId });
   */
  async transferProject(input: ProjectTransferInput): Promise<void> {
    await this.mutate(['projects.'], (context) => this.trpc.projects.transfer.mutate(input, { context }), this.ownerCallOptions());
  }

  // ─── Co-owners ─────────────────────────────────────────────────────────────────────────────────

  /**
   * A project's owners: the members of its owner team (who own every project of that team).
   *
   * @example
   * const { items, owner_team } = await internal.queryClient.fetchQuery(internal.projectOwnersQuery(projectId));
   */
  projectOwnersQuery(projectId: string): LatchQuery<ProjectOwners> {
    return defineQuery(this.sessionKey('projects.listOwners', { projectId }), () =>
      this.call((context) => this.trpc.projects.listOwners.query({ project_id: projectId }, { context }), this.ownerCallOptions()),
    );
  }

  /** Pending invitations to a project's owner team. */
  projectOwnerInvitationsQuery(projectId: string): LatchQuery<ProjectOwnerInvitation[]> {
    return defineQuery(this.sessionKey('projects.listOwnerInvitations', { projectId }), async () => {
      const list = await this.call((context) => this.trpc.projects.listOwnerInvitations.query({ project_id: projectId }, { context }), this.ownerCallOptions());
      return list.items;
    });
  }

  /**
   * Emails `email` an invitation to co-own the project (to join its owner team). The link opens
   * this server's console, where the invitee signs in or up and accepts.
   *
   * @example
   * await internal.inviteProjectOwner(projectId, 'bob@example.com');
   */
  async inviteProjectOwner(projectId: string, email: string): Promise<{ id: string }> {
    return this.mutate(
      ['projects.', 'emails.'],
      (context) => this.trpc.projects.inviteOwner.mutate({ project_id: projectId, email }, { context }),
      this.ownerCallOptions(),
    );
  }

  /** Withdraws an owner invitation: its link stops working at once. */
  async revokeProjectOwnerInvitation(projectId: string, invitationId: string): Promise<void> {
    await this.mutate(
      ['projects.'],
      (context) => this.trpc.projects.revokeOwnerInvitation.mutate({ project_id: projectId, invitation_id: invitationId }, { context }),
      this.ownerCallOptions(),
    );
  }

  /**
   * Removes an owner (yourself included: that is leaving). The last owner cannot be removed
   * (`KnownErrors.LastProjectOwner`).
   *
   * @example
   * await internal.removeProjectOwner(projectId, userId);
   */
  async removeProjectOwner(projectId: string, userId: string): Promise<void> {
    await this.mutate(
      ['projects.', 'teams.'],
      (context) => this.trpc.projects.removeOwner.mutate({ project_id: projectId, user_id: userId }, { context }),
      this.ownerCallOptions(),
    );
  }
}

/** Changing the project and its configuration (admin). */
export abstract class AdminProjectsFeature extends AppCore {
  /**
   * Updates the project and its configuration (only the keys given change).
   *
   * @example
   * await admin.updateProject({ display_name: 'Shop', config: { client_user_deletion_enabled: true } });
   */
  async updateProject(patch: ProjectUpdateInput): Promise<AdminProject> {
    return this.mutate(['projects.'], (context) => this.trpc.projects.updateCurrent.mutate(patch, { context }));
  }

  /**
   * Deletes the project and all of its data.
   *
   * @example
   * await admin.deleteProject();
   */
  async deleteProject(): Promise<void> {
    await this.call((context) => this.trpc.projects.deleteCurrent.mutate({}, { context }));
    this.queryClient.clear();
  }

  // ─── Configuration ─────────────────────────────────────────────────────────────────────────────

  /**
   * The effective configuration as a cached query.
   *
   * @example
   * admin.subscribe(() => admin.configQuery(), (state) => console.log(state.data));
   */
  configQuery(): LatchQuery<ProjectConfig> {
    return defineQuery(this.appKey('projects.getConfig'), async () =>
      parseConfig((await this.call((context) => this.trpc.projects.getConfig.query({}, { context }))).config_string),
    );
  }

  /**
   * The effective project configuration.
   *
   * @example
   * const config = await admin.getConfig();
   */
  async getConfig(): Promise<ProjectConfig> {
    return this.queryClient.fetchQuery(this.configQuery());
  }

  /**
   * Overrides configuration keys (dotted keys set nested values) and returns the new effective
   * configuration.
   *
   * @example
   * await admin.overrideConfig({ sign_up_enabled: false, 'email_config.type': 'shared' });
   */
  async overrideConfig(override: ProjectConfig): Promise<ProjectConfig> {
    const result = await this.call((context) => this.trpc.projects.overrideConfig.mutate({ config_override_string: JSON.stringify(override) }, { context }));
    this.invalidate(['projects.']);
    return parseConfig(result.config_string);
  }
}
