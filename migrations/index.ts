import type { Migration } from 'kysely';
import * as m0001 from './0001_core.js';
import * as m0002 from './0002_teams_permissions.js';
import * as m0003 from './0003_codes_outbox.js';
import * as m0004 from './0004_rate_limits.js';
import * as m0005 from './0005_project_signing_keys.js';
import * as m0006 from './0006_auth_claims.js';
import * as m0007 from './0007_jobs.js';
import * as m0008 from './0008_oauth.js';
import * as m0009 from './0009_mfa.js';
import * as m0010 from './0010_passkeys.js';
import * as m0011 from './0011_cli_auth.js';
import * as m0012 from './0012_tenant_led_keys.js';
import * as m0013 from './0013_payments.js';
import * as m0014 from './0014_data_vault.js';
import * as m0015 from './0015_webhooks.js';
import * as m0016 from './0016_email_templates.js';
import * as m0017 from './0017_email_content.js';
import * as m0018 from './0018_email_delivery.js';
import * as m0019 from './0019_payments_billing.js';
import * as m0020 from './0020_workflow_tokens_activity.js';
import * as m0021 from './0021_cluster.js';
import * as m0022 from './0022_email_scheduled_sends.js';
import * as m0023 from './0023_user_oauth_providers.js';

/** Every migration, in order. A static list: bundlers and tsx need no directory scan. */
export const migrations: Record<string, Migration> = {
  '0001_core': m0001,
  '0002_teams_permissions': m0002,
  '0003_codes_outbox': m0003,
  '0004_rate_limits': m0004,
  '0005_project_signing_keys': m0005,
  '0006_auth_claims': m0006,
  '0007_jobs': m0007,
  '0008_oauth': m0008,
  '0009_mfa': m0009,
  '0010_passkeys': m0010,
  '0011_cli_auth': m0011,
  '0012_tenant_led_keys': m0012,
  '0013_payments': m0013,
  '0014_data_vault': m0014,
  '0015_webhooks': m0015,
  '0016_email_templates': m0016,
  '0017_email_content': m0017,
  '0018_email_delivery': m0018,
  '0019_payments_billing': m0019,
  '0020_workflow_tokens_activity': m0020,
  '0021_cluster': m0021,
  '0022_email_scheduled_sends': m0022,
  '0023_user_oauth_providers': m0023,
};
