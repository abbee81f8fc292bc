/**
 * The SDK in one script, against `npm start`: `npx tsx sdk/example.ts`. To watch an access token
 * expire mid-run unnoticed: start the server with LATCH_ACCESS_TOKEN_TTL_SECONDS=5, run with PAUSE_SECONDS=6.
 */
import { AdminApp, ClientApp, ServerApp } from './index.js';

const baseUrl = process.env.LATCH_API_URL ?? 'http://localhost:8400';
const email = (who: string) => `${who}-${Date.now()}@example.com`;

// An owner signs up on the internal project, creates a project, configures it and makes its keys.
const owner = new ClientApp({ projectId: 'internal', baseUrl, tokenStore: 'memory' });
await owner.signUpWithPassword({ email: email('owner'), password: 'owner-password-1' });
const project = await owner.createProject({ display_name: 'Example' });
const admin = new AdminApp({ projectId: project.id, baseUrl, adminAccessToken: () => owner.getAccessToken() });
await admin.overrideConfig({ client_user_deletion_enabled: true });
const keys = await admin.createInternalApiKey({
  description: 'example',
  has_publishable_client_key: true,
  has_secret_server_key: true,
  has_super_secret_admin_key: false,
});

// An end user signs up, signs in, reads and updates themselves across an expired access token, signs out.
const app = new ClientApp({ projectId: project.id, publishableClientKey: keys.publishable_client_key ?? '', baseUrl, tokenStore: 'memory' });
const ann = email('ann');
await app.signUpWithPassword({ email: ann, password: 'correct-horse-1' });
const signIn = await app.signInWithPassword({ email: ann, password: 'correct-horse-1' });
if (signIn.status === 'error') throw signIn.error;
const firstToken = await app.getAccessToken();
await new Promise((resolve) => setTimeout(resolve, Number(process.env.PAUSE_SECONDS ?? 0) * 1000));
const user = await app.updateUser({ display_name: 'Ann' });
console.log(user.display_name, (await app.getUser())?.primary_email, 'access token refreshed:', firstToken !== (await app.getAccessToken()));
await app.signOut();

// Server code lists the users with the secret server key.
const server = new ServerApp({ projectId: project.id, secretServerKey: keys.secret_server_key ?? '', baseUrl });
console.log(
  (await server.listUsers()).items.map((u) => u.primary_email),
  'signed out:',
  (await app.getUser()) === null,
);
