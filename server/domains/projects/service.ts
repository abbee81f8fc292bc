import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Deps } from '../../deps.js';
import type { ProjectRow } from '../../db/schema.js';
import { decrypt, encrypt } from '../../crypto/encryption.js';
import { KnownErrors } from '../../../contract/errors/known-errors.js';
import type { AuthContext } from '../../access/context.js';
import { trustedDomainReach } from '../../../contract/validation/urls.js';
import { insertTeam, insertTeamMember } from '../teams/queries.js';
import { setSelectedTeam } from '../users/queries.js';
import { seedDefaultTeamRoles } from '../permissions/service.js';
import {
  type DomainConfig,
  DEFAULT_BRANCH_ID,
  DEFAULT_PROJECT_CONFIG,
  INTERNAL_PROJECT_ID,
  type OAuthProviderConfig,
  type ProjectConfig,
  effectiveConfig,
  internalProjectConfig,
} from '../../../contract/config/project-config.js';
import * as q from './queries.js';
import {
  OAUTH_CREDENTIALS_REQUIRED,
  type adminProjectSchema,
  type clientProjectSchema,
  type configUpdateSchema,
  type projectCreateSchema,
  type projectUpdateSchema,
} from '../../../contract/schemas/projects.js';

type AdminProject = z.infer<typeof adminProjectSchema>;
type ClientProject = z.infer<typeof clientProjectSchema>;
type ConfigUpdate = z.infer<typeof configUpdateSchema>;

const ENCRYPTED = /^v1\./;

/** A stored project secret in plaintext (decrypted when it is an encrypted `v1.…` value); null when it cannot be. */
export function revealSecret(deps: Deps, projectId: string, value: string | null | undefined): string | null {
  if (!value) return null;
  if (!ENCRYPTED.test(value)) return value;
  try {
    return decrypt(deps.configKey, value, projectId);
  } catch {
    deps.log.warn('a stored project secret could not be decrypted (was LATCH_SECRET changed?)', { project_id: projectId });
    return null;
  }
}

/** Spec section 5 "Production mode": each problem links to the domains page. */
export function productionModeProblems(projectId: string, config: ProjectConfig): { message: string; relative_fix_url: string }[] {
  const fix = `/projects/${projectId}/domains`;
  const problems: { message: string; relative_fix_url: string }[] = [];
  if (config.allow_localhost) problems.push({ message: 'Localhost is not allowed in production mode', relative_fix_url: fix });
  for (const { domain } of config.domains) {
    // The host as the URL parser reads it, so `http://2130706433` or `https://*.localhost` is
    // reported as the localhost it is (production mode refuses such callbacks either way).
    const reach = trustedDomainReach(domain);
    if (!reach) {
      problems.push({ message: `Trusted domain ${domain} is not a valid URL`, relative_fix_url: fix });
      continue;
    }
    if (reach.localhost)
      problems.push({ message: `Localhost is not allowed in production mode: remove ${domain} from the trusted domains`, relative_fix_url: fix });
    else if (reach.ipAddress) problems.push({ message: `Direct IPs are not valid trusted domains in production mode: ${domain}`, relative_fix_url: fix });
    else if (!domain.toLowerCase().startsWith('https://')) problems.push({ message: `Trusted domains should be HTTPS: ${domain}`, relative_fix_url: fix });
  }
  return problems;
}

/**
 * Switching production mode on is refused while the project has problems (with the config the
 * same request leaves it with, so one PATCH may fix them and switch it on). Once on, a later change
 * that brings a problem back is allowed, and shown: production mode itself still refuses localhost
 * and bare-IP callbacks at request time (verification/service.ts).
 */
function refuseProductionModeProblems(projectId: string, config: ProjectConfig): void {
  const problems = productionModeProblems(projectId, config);
  if (problems.length > 0) throw new KnownErrors.ProductionModeHasProblems(problems);
}

export function toAdminProjectDto(deps: Deps, row: ProjectRow, branch: string = DEFAULT_BRANCH_ID): AdminProject {
  const config = effectiveConfig(row.config);
  // Secrets are write-only (issue 13 item 5): a read says whether one is stored, never what it is.
  const emailConfig =
    config.email_config.type === 'standard'
      ? (({ password, ...rest }) => ({ ...rest, has_password: Boolean(password) }))(config.email_config)
      : { type: 'shared' as const };
  return {
    id: row.id,
    branch,
    display_name: row.display_name,
    description: row.description,
    created_at_millis: row.created_at.getTime(),
    is_production_mode: row.is_production_mode,
    logo_url: row.logo_url,
    full_logo_url: row.full_logo_url,
    owner_team_id: row.owner_team_id,
    config: {
      id: row.id,
      sign_up_enabled: config.sign_up_enabled,
      credential_enabled: config.credential_enabled,
      magic_link_enabled: config.magic_link_enabled,
      passkey_enabled: config.passkey_enabled,
      anonymous_enabled: config.anonymous_enabled,
      allow_localhost: config.allow_localhost,
      create_team_on_sign_up: config.create_team_on_sign_up,
      client_team_creation_enabled: config.client_team_creation_enabled,
      client_user_deletion_enabled: config.client_user_deletion_enabled,
      allow_user_api_keys: config.allow_user_api_keys,
      allow_team_api_keys: config.allow_team_api_keys,
      oauth_account_merge_strategy: config.oauth_account_merge_strategy,
      team_creator_default_permissions: config.team_creator_default_permissions,
      team_member_default_permissions: config.team_member_default_permissions,
      user_default_permissions: config.user_default_permissions,
      email_theme: config.email_theme,
      domains: config.domains,
      oauth_providers: config.oauth_providers.map((p) => ({
        id: p.id,
        enabled: p.enabled,
        type: p.type,
        client_id: p.client_id ?? null,
        has_client_secret: Boolean(p.client_secret),
        facebook_config_id: p.facebook_config_id ?? null,
        microsoft_tenant_id: p.microsoft_tenant_id ?? null,
        ...(p.id === 'oidc' ? { issuer_url: p.issuer_url ?? null } : {}),
      })),
      enabled_oauth_providers: config.oauth_providers.filter((p) => p.enabled).map((p) => ({ id: p.id })),
      email_config: emailConfig,
      data_vault_stores: config.data_vault_stores.map((store) => ({ id: store.id, display_name: store.display_name })),
      payments: config.payments,
    },
    production_mode_problems: productionModeProblems(row.id, config),
  };
}

export function toClientProjectDto(project: AuthContext['project']): ClientProject {
  const c = project.config;
  return {
    id: project.id,
    display_name: project.displayName,
    logo_url: project.logoUrl,
    full_logo_url: project.fullLogoUrl,
    config: {
      sign_up_enabled: c.sign_up_enabled,
      credential_enabled: c.credential_enabled,
      magic_link_enabled: c.magic_link_enabled,
      passkey_enabled: c.passkey_enabled,
      anonymous_enabled: c.anonymous_enabled,
      client_team_creation_enabled: c.client_team_creation_enabled,
      client_user_deletion_enabled: c.client_user_deletion_enabled,
      allow_user_api_keys: c.allow_user_api_keys,
      allow_team_api_keys: c.allow_team_api_keys,
      enabled_oauth_providers: c.oauth_providers.filter((p) => p.enabled).map((p) => ({ id: p.id })),
      domains: c.domains,
    },
  };
}

function secretRequired(path: string, message: string): InstanceType<typeof KnownErrors.SchemaError> {
  return new KnownErrors.SchemaError(`Request validation failed:\n  - ${path} ${message}`, { issues: [{ path, message }] });
}

/**
 * Applies a config patch; secrets that changed are encrypted, bound to the project id. Secrets are
 * write-only, so a patch that leaves one out keeps the stored one: an OAuth client secret for the
 * same provider and client id, an SMTP password for the same host and username (a new host or
 * user must come with its password, or the stored one could be sent to a server of the caller's
 * choosing and read there).
 */
function mergeConfig(deps: Deps, projectId: string, current: ProjectConfig, patch: ConfigUpdate): ProjectConfig {
  const next: ProjectConfig = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined || key === 'oauth_providers' || key === 'email_config' || key === 'domains') continue;
    (next as unknown as Record<string, unknown>)[key] = value;
  }
  if (patch.domains) next.domains = patch.domains.map((d): DomainConfig => ({ domain: d.domain, handler_path: d.handler_path }));
  if (patch.oauth_providers) {
    const ids = new Set<string>();
    next.oauth_providers = patch.oauth_providers.map((p, index): OAuthProviderConfig => {
      if (ids.has(p.id)) throw new KnownErrors.SchemaError(`OAuth provider ${p.id} is listed twice.`);
      ids.add(p.id);
      let clientSecret: string | null = null;
      if (p.type === 'standard') {
        if (p.client_secret) clientSecret = encrypt(deps.configKey, p.client_secret, projectId);
        else {
          const stored = current.oauth_providers.find(
            (s) => s.id === p.id && s.type === 'standard' && s.client_id === (p.client_id ?? null) && s.client_secret,
          );
          if (!stored?.client_secret) throw secretRequired(`config.oauth_providers.${index}.client_secret`, OAUTH_CREDENTIALS_REQUIRED);
          clientSecret = stored.client_secret;
        }
      }
      return {
        id: p.id,
        enabled: p.enabled,
        type: p.type,
        client_id: p.type === 'standard' ? (p.client_id ?? null) : null,
        client_secret: clientSecret,
        facebook_config_id: p.facebook_config_id ?? null,
        microsoft_tenant_id: p.microsoft_tenant_id ?? null,
        ...(p.id === 'oidc' ? { issuer_url: p.issuer_url ?? null } : {}),
      };
    });
  }
  if (patch.email_config) {
    const email = patch.email_config;
    if (email.type === 'standard') {
      let password: string;
      if (email.password !== undefined) password = encrypt(deps.configKey, email.password, projectId);
      else {
        const stored = current.email_config;
        const same = stored.type === 'standard' && stored.host === email.host && stored.username === email.username;
        if (!same) throw secretRequired('config.email_config.password', 'is required when the email server is new or its host or username changes');
        password = stored.password;
      }
      next.email_config = { ...email, password };
    } else {
      next.email_config = { type: 'shared' };
    }
  }
  return next;
}

export async function getAdminProject(deps: Deps, auth: AuthContext): Promise<AdminProject> {
  const row = await q.findProject(deps.db, auth.project.id);
  if (!row) throw new KnownErrors.CurrentProjectNotFound(auth.project.id);
  return toAdminProjectDto(deps, row, auth.tenancy.branchId);
}

export async function updateAdminProject(
  deps: Deps,
  auth: AuthContext,
  input: z.infer<typeof projectUpdateSchema> | ((locked: ProjectRow) => z.infer<typeof projectUpdateSchema>),
): Promise<AdminProject> {
  const row = await deps.db.transaction().execute(async (trx) => {
    const current = await q.lockProject(trx, auth.project.id);
    if (!current) throw new KnownErrors.CurrentProjectNotFound(auth.project.id);
    // A patch computed from the locked row (config override) cannot lose a concurrent update.
    const { config, ...fields } = typeof input === 'function' ? input(current) : input;
    const nextConfig = config ? mergeConfig(deps, current.id, effectiveConfig(current.config), config) : undefined;
    if (fields.is_production_mode && !current.is_production_mode) refuseProductionModeProblems(current.id, nextConfig ?? effectiveConfig(current.config));
    const updated = await q.updateProject(trx, current.id, { ...fields, ...(nextConfig ? { config: { ...nextConfig } } : {}) });
    if (!updated) throw new KnownErrors.CurrentProjectNotFound(auth.project.id);
    return updated;
  });
  deps.projectAuthCache.invalidate();
  return toAdminProjectDto(deps, row, auth.tenancy.branchId);
}

export async function deleteAdminProject(deps: Deps, auth: AuthContext): Promise<void> {
  if (auth.project.id === INTERNAL_PROJECT_ID) throw new KnownErrors.SchemaError('The internal project cannot be deleted.');
  // One statement: tenancies, users, sessions, keys and teams go with it by ON DELETE CASCADE.
  const deleted = await q.deleteProject(deps.db, auth.project.id);
  deps.projectAuthCache.invalidate();
  if (!deleted) throw new KnownErrors.CurrentProjectNotFound(auth.project.id);
}

export function requireInternalOwner(auth: AuthContext): string {
  if (auth.project.id !== INTERNAL_PROJECT_ID) throw new KnownErrors.ExpectedInternalProject();
  if (!auth.user) throw new KnownErrors.UserAuthenticationRequired();
  return auth.user.sub;
}

export async function listOwnedProjects(deps: Deps, auth: AuthContext): Promise<AdminProject[]> {
  const userId = requireInternalOwner(auth);
  const rows = await q.listProjectsOwnedBy(deps.db, auth.tenancy.id, userId);
  return rows.map((row) => toAdminProjectDto(deps, row));
}

export async function createOwnedProject(deps: Deps, auth: AuthContext, input: z.infer<typeof projectCreateSchema>): Promise<AdminProject> {
  const userId = requireInternalOwner(auth);
  const row = await deps.db.transaction().execute(async (trx) => {
    let ownerTeamId = input.owner_team_id ?? auth.user?.selected_team_id ?? null;
    if (ownerTeamId && !(await q.isTeamMember(trx, auth.tenancy.id, ownerTeamId, userId))) {
      if (input.owner_team_id) throw new KnownErrors.TeamMembershipNotFound(ownerTeamId, userId);
      ownerTeamId = null;
    }
    if (!ownerTeamId) {
      // An owner with no team gets a personal one, selected, so the project always has an owner team.
      ownerTeamId = randomUUID();
      await insertTeam(trx, { tenancy_id: auth.tenancy.id, id: ownerTeamId, display_name: `${auth.user?.name ?? auth.user?.email ?? 'Personal'} team` });
      await insertTeamMember(trx, { tenancy_id: auth.tenancy.id, team_id: ownerTeamId, user_id: userId });
      await setSelectedTeam(trx, auth.tenancy.id, userId, ownerTeamId);
    }
    const id = randomUUID();
    // Asked for (the console does): Stack Auth's team roles (permissions/service.ts DEFAULT_TEAM_ROLES)
    // granted by default, unless the creator sets the default lists too.
    const defaults = input.default_team_roles
      ? { ...DEFAULT_PROJECT_CONFIG, team_creator_default_permissions: [{ id: 'team_admin' }], team_member_default_permissions: [{ id: 'team_member' }] }
      : { ...DEFAULT_PROJECT_CONFIG };
    const base = mergeConfig(deps, id, defaults, input.config ?? {});
    if (input.is_production_mode) refuseProductionModeProblems(id, base);
    const project = await q.insertProject(trx, {
      id,
      display_name: input.display_name,
      description: input.description ?? null,
      is_production_mode: input.is_production_mode ?? false,
      logo_url: input.logo_url ?? null,
      full_logo_url: input.full_logo_url ?? null,
      owner_team_id: ownerTeamId,
      config: { ...base },
    });
    const tenancyId = randomUUID();
    await q.insertTenancy(trx, { id: tenancyId, project_id: id, branch_id: DEFAULT_BRANCH_ID });
    if (input.default_team_roles) await seedDefaultTeamRoles(trx, tenancyId);
    return project;
  });
  return toAdminProjectDto(deps, row);
}

export async function transferProject(deps: Deps, auth: AuthContext, projectId: string, newTeamId: string): Promise<void> {
  const userId = requireInternalOwner(auth);
  await deps.db.transaction().execute(async (trx) => {
    const project = await q.lockProject(trx, projectId);
    // Not revealing whether a project the caller does not own exists.
    if (!project || !project.owner_team_id || !(await q.isTeamMember(trx, auth.tenancy.id, project.owner_team_id, userId))) {
      throw new KnownErrors.ProjectNotFound(projectId);
    }
    if (!(await q.isTeamMember(trx, auth.tenancy.id, newTeamId, userId))) throw new KnownErrors.TeamMembershipNotFound(newTeamId, userId);
    await q.updateProject(trx, projectId, { owner_team_id: newTeamId });
  });
  deps.projectAuthCache.invalidate();
}

/** The effective config as JSON (the same fields as the admin view's config). */
export async function getConfigString(deps: Deps, auth: AuthContext): Promise<string> {
  return JSON.stringify((await getAdminProject(deps, auth)).config);
}

/**
 * Applies a JSON override: an object of config keys, where a dotted key (`"sign_up_enabled"` or
 * `"email_config.host"`) sets a nested value. The result is validated like a PATCH.
 */
export async function overrideConfig(deps: Deps, auth: AuthContext, overrideString: string, parse: (value: unknown) => ConfigUpdate): Promise<void> {
  let override: unknown;
  try {
    override = JSON.parse(overrideString);
  } catch {
    throw new KnownErrors.SchemaError('config_override_string must be a JSON object.');
  }
  if (typeof override !== 'object' || override === null || Array.isArray(override))
    throw new KnownErrors.SchemaError('config_override_string must be a JSON object.');
  const entries = override as Record<string, unknown>;
  await updateAdminProject(deps, auth, (locked) => ({ config: parse(applyOverride(writableConfig(toAdminProjectDto(deps, locked).config), entries)) }));
}

/**
 * The admin view of the config in the shape a patch takes: the read-only flags about write-only
 * secrets dropped (an override that does not name a secret keeps the stored one, see mergeConfig).
 */
function writableConfig(config: AdminProject['config']): Record<string, unknown> {
  const email = config.email_config.type === 'standard' ? (({ has_password: _, ...rest }) => rest)(config.email_config) : config.email_config;
  return { ...config, email_config: email, oauth_providers: config.oauth_providers.map(({ has_client_secret: _, ...rest }) => rest) };
}

/** The patch that a dotted-key override makes of the current config. */
function applyOverride(current: Record<string, unknown>, entries: Record<string, unknown>): Record<string, unknown> {
  const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
  const notAnObject = (key: string) => new KnownErrors.SchemaError(`config_override_string: ${key} does not point into a config object.`);
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entries)) {
    // Walking `a.__proto__.b` would write to Object.prototype of the whole server process.
    if (key.split('.').some((part) => part === '__proto__' || part === 'constructor' || part === 'prototype')) {
      throw new KnownErrors.SchemaError(`config_override_string: ${key} is not a config key.`);
    }
    const [head, ...tail] = key.split('.');
    if (!head) continue;
    if (tail.length === 0) {
      patch[head] = value;
      continue;
    }
    if (!Object.hasOwn(patch, head)) {
      // Changing an object's type (`email_config.type`: standard → shared) starts it afresh: the old
      // variant's fields (host, password, …) do not belong to the new one.
      const existing = current[head];
      const newType = entries[`${head}.type`];
      const retyped = newType !== undefined && isObject(existing) && existing.type !== newType;
      patch[head] = retyped ? {} : structuredClone(existing ?? {});
    }
    let node = patch[head];
    for (const part of tail.slice(0, -1)) {
      if (!isObject(node)) throw notAnObject(key);
      node = node[part] ??= {};
    }
    if (!isObject(node)) throw notAnObject(key);
    node[tail[tail.length - 1]!] = value;
  }
  return patch;
}

/** Creates the internal project on first start; keeps its sign-up flag in step with the env. */
export async function ensureInternalProject(deps: Deps): Promise<void> {
  await deps.db.transaction().execute(async (trx) => {
    const existing = await q.lockProject(trx, INTERNAL_PROJECT_ID);
    // The console's own pages (the owner's password-reset link) live on this server: with a public
    // LATCH_BASE_URL that origin is the internal project's trusted domain (localhost is allowed anyway).
    const consoleOrigin = deps.env.baseUrl ? new URL(deps.env.baseUrl).origin : null;
    const withConsoleDomain = (config: ProjectConfig): ProjectConfig =>
      consoleOrigin && !config.domains.some((d) => d.domain === consoleOrigin)
        ? { ...config, domains: [...config.domains, { domain: consoleOrigin, handler_path: '/' }] }
        : config;
    if (!existing) {
      await q.insertProject(trx, {
        id: INTERNAL_PROJECT_ID,
        display_name: 'Latch',
        description: 'The internal project: project owners sign in here.',
        is_production_mode: false,
        logo_url: null,
        full_logo_url: null,
        owner_team_id: null,
        config: { ...withConsoleDomain(internalProjectConfig(deps.env.internalSignUp)) },
      });
    } else {
      const config = effectiveConfig(existing.config);
      const next = withConsoleDomain({ ...config, sign_up_enabled: deps.env.internalSignUp });
      if (config.sign_up_enabled !== deps.env.internalSignUp || next.domains.length !== config.domains.length) {
        await q.updateProject(trx, INTERNAL_PROJECT_ID, { config: { ...next } });
      }
    }
    await q.insertTenancy(trx, { id: randomUUID(), project_id: INTERNAL_PROJECT_ID, branch_id: DEFAULT_BRANCH_ID });
  });
  deps.projectAuthCache.invalidate();
}
