import { describe, expect, it } from 'vitest';
import { DEFAULT_PROJECT_CONFIG, effectiveConfig, internalProjectConfig } from './project-config.js';

describe('the project config assembled from its sections', () => {
  it('has the defaults of every section, and nothing else', () => {
    expect(DEFAULT_PROJECT_CONFIG).toEqual({
      sign_up_enabled: true,
      credential_enabled: true,
      magic_link_enabled: false,
      passkey_enabled: false,
      anonymous_enabled: true,
      allow_localhost: true,
      create_team_on_sign_up: false,
      client_team_creation_enabled: false,
      client_user_deletion_enabled: false,
      allow_user_api_keys: false,
      allow_team_api_keys: false,
      oauth_account_merge_strategy: 'link_method',
      team_creator_default_permissions: [],
      team_member_default_permissions: [],
      user_default_permissions: [],
      email_theme: null,
      domains: [],
      oauth_providers: [],
      email_config: { type: 'shared' },
      data_vault_stores: [],
      payments: { test_mode: false, items: {}, productLines: {}, products: {} },
    });
  });

  it('gives a stored config the default of every key it lacks, and keeps what it has', () => {
    expect(effectiveConfig({})).toEqual(DEFAULT_PROJECT_CONFIG);
    const stored = { magic_link_enabled: true, domains: [{ domain: 'https://example.com', handler_path: '/handler' }] };
    expect(effectiveConfig(stored)).toEqual({ ...DEFAULT_PROJECT_CONFIG, ...stored });
  });

  it('configures the internal project for owners', () => {
    expect(internalProjectConfig(false)).toMatchObject({ sign_up_enabled: false, create_team_on_sign_up: true, anonymous_enabled: false });
  });
});
