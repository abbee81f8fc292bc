import { configUpdateSchema } from '../../contract/schemas/projects.js';
import { type PaymentsSettings, paymentsConfigSchema } from '../../contract/config/payments.js';
import type { AdminApp, AdminProject, ProjectUpdateInput } from '../../sdk/index.js';

export type ConfigPatch = NonNullable<ProjectUpdateInput['config']>;

/**
 * Saves config keys after checking them with the server's own schema, so a form shows the same
 * message the server would have sent, without a round trip.
 */
export async function saveConfig(admin: AdminApp, patch: ConfigPatch): Promise<void> {
  const checked = configUpdateSchema.safeParse(patch);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new Error(`${issue?.path.join('.') ?? 'config'}: ${issue?.message ?? 'invalid'}`);
  }
  await admin.updateProject({ config: patch });
}

/**
 * The project's payments section typed as the contract's: the admin view types products loosely
 * (a record of records), so it is read back through paymentsConfigSchema, which it passed when it
 * was saved. Should it not parse (a config from an older release), the catalogue shows empty
 * products rather than trusting fields it cannot type.
 */
export function paymentsOf(project: AdminProject): PaymentsSettings {
  const parsed = paymentsConfigSchema.safeParse(project.config.payments);
  if (parsed.success) return parsed.data;
  const { test_mode, items, productLines } = project.config.payments;
  return { test_mode, items, productLines, products: {} };
}
