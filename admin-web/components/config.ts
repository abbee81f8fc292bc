import { configUpdateSchema } from '../../contract/schemas/projects.js';
import type { AdminApp, ProjectUpdateInput } from '../../sdk/index.js';

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
