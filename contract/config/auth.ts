/**
 * Project config, auth section: who may sign up, which sign-in methods are on, and what a signed-in
 * user may do to their own account from a client (spec section 3, "Config flags").
 */
import { z } from 'zod';

export interface AuthConfig {
  sign_up_enabled: boolean;
  /** Email and password. */
  credential_enabled: boolean;
  magic_link_enabled: boolean;
  passkey_enabled: boolean;
  anonymous_enabled: boolean;
  client_user_deletion_enabled: boolean;
}

export const DEFAULT_AUTH_CONFIG: AuthConfig = {
  sign_up_enabled: true,
  credential_enabled: true,
  magic_link_enabled: false,
  passkey_enabled: false,
  anonymous_enabled: true,
  client_user_deletion_enabled: false,
};

/** The section's fields on the wire (all flags, so the same shape reads and writes). */
export const authConfigFields = {
  sign_up_enabled: z.boolean(),
  credential_enabled: z.boolean(),
  magic_link_enabled: z.boolean(),
  passkey_enabled: z.boolean(),
  anonymous_enabled: z.boolean(),
  client_user_deletion_enabled: z.boolean(),
};
