import type { AdminApp, AdminProject } from '../../sdk/index.js';

/** What every project page receives. */
export interface PageProps {
  projectId: string;
  admin: AdminApp;
  project: AdminProject;
}
