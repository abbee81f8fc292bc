/**
 * A tiny command line program that signs in through the browser (CLI login, README "CLI login")
 * and prints the signed-in user.
 *
 *   npm run example                                  # in another terminal: Latch and the example app
 *   npx tsx examples/cli/cli.ts [login|whoami|logout]
 *
 * With the example running, the project comes from its /latch-config.json; for another app set
 * LATCH_PROJECT_ID, LATCH_PUBLISHABLE_CLIENT_KEY, LATCH_BASE_URL and LATCH_APP_URL (the app that
 * serves the UI kit's /handler pages).
 *
 * `login` (the default) prints a link to the app's /handler/cli-auth-confirm page and waits until
 * you approve there; `whoami` prints the user of the saved session; `logout` ends it. The session
 * (its refresh token) and a pending request's polling code are kept in LATCH_CLI_STATE (default
 * ~/.latch-demo-cli.json, mode 600): a login interrupted after the link was shown resumes with the
 * same link when run again, until the request expires.
 *
 * Output: progress on stderr; the user as one JSON line on stdout ({"id", "primary_email",
 * "display_name"}), so scripts can read it.
 */
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { ClientApp, KnownErrors } from '../../sdk/index.js';

interface State {
  refreshToken?: string;
  pending?: { pollingCode: string; url: string; expiresAt: number };
}

const appUrl = process.env.LATCH_APP_URL ?? 'http://localhost:5173';

/**
 * The project: LATCH_PROJECT_ID, LATCH_PUBLISHABLE_CLIENT_KEY and LATCH_BASE_URL, or else the
 * example app's /latch-config.json (what `npm run example` serves at LATCH_APP_URL).
 */
async function projectConfig(): Promise<{ projectId: string; publishableClientKey: string; baseUrl: string }> {
  const { LATCH_PROJECT_ID: projectId, LATCH_PUBLISHABLE_CLIENT_KEY: publishableClientKey } = process.env;
  if (projectId && publishableClientKey) return { projectId, publishableClientKey, baseUrl: process.env.LATCH_BASE_URL ?? 'http://localhost:8400' };
  try {
    const response = await fetch(`${appUrl}/latch-config.json`);
    if (response.ok) return (await response.json()) as { projectId: string; publishableClientKey: string; baseUrl: string };
  } catch {
    // Not running: say what to set below.
  }
  console.error(
    `Set LATCH_PROJECT_ID and LATCH_PUBLISHABLE_CLIENT_KEY (and LATCH_BASE_URL), or run \`npm run example\` (it serves ${appUrl}/latch-config.json).`,
  );
  process.exit(2);
}

const { projectId, publishableClientKey, baseUrl } = await projectConfig();
const stateFile = process.env.LATCH_CLI_STATE ?? path.join(homedir(), '.latch-demo-cli.json');
const waitTimeMillis = Number(process.env.LATCH_CLI_WAIT_MS ?? 2000);

const readState = (): State => (existsSync(stateFile) ? (JSON.parse(readFileSync(stateFile, 'utf8')) as State) : {});
function writeState(state: State): void {
  writeFileSync(stateFile, JSON.stringify(state), { mode: 0o600 });
  chmodSync(stateFile, 0o600);
}

/** An app on the saved refresh token (its access tokens are fetched as needed). */
const appWith = (refreshToken: string | null) =>
  new ClientApp({ projectId, publishableClientKey, baseUrl, tokenStore: refreshToken ? { refreshToken, accessToken: null } : 'memory' });

async function printUser(refreshToken: string): Promise<boolean> {
  const user = await appWith(refreshToken).getUser();
  if (!user) return false;
  console.log(JSON.stringify({ id: user.id, primary_email: user.primary_email, display_name: user.display_name }));
  return true;
}

async function login(): Promise<void> {
  const state = readState();
  if (state.refreshToken && (await printUser(state.refreshToken))) return;
  const pending = state.pending && state.pending.expiresAt > Date.now() ? state.pending : undefined;
  if (pending) console.error(`Resuming the sign-in. If you have not approved it yet, open:\n${pending.url}`);
  const result = await appWith(null).promptCliLogin({
    appUrl,
    waitTimeMillis,
    ...(pending ? { pollingCode: pending.pollingCode } : {}),
    promptLink: (url, request) => {
      // Kept before the first poll: a CLI killed from here on resumes with the same link.
      writeState({ pending: request });
      console.error(`Please visit the following URL to authenticate:\n${url}`);
    },
  });
  if (result.status === 'error') {
    writeState({});
    console.error(result.error.message);
    process.exit(1);
  }
  writeState({ refreshToken: result.data });
  if (!(await printUser(result.data))) throw new Error('The new session does not work.');
}

async function main(): Promise<void> {
  const command = process.argv[2] ?? 'login';
  if (command === 'login') return login();
  const { refreshToken } = readState();
  if (command === 'whoami') {
    if (!refreshToken || !(await printUser(refreshToken))) {
      console.error('Not signed in. Run `login` first.');
      process.exit(1);
    }
    return;
  }
  if (command === 'logout') {
    if (refreshToken)
      await appWith(refreshToken)
        .signOut()
        .catch((error: unknown) => {
          if (!(error instanceof KnownErrors.RefreshTokenNotFoundOrExpired)) throw error;
        });
    rmSync(stateFile, { force: true });
    console.error('Signed out.');
    return;
  }
  console.error(`Unknown command ${command}: use login, whoami or logout.`);
  process.exit(2);
}

await main();
