import { describe, expect, it } from 'vitest';
import { AdminApp } from './admin-app.js';
import { ClientApp } from './client-app.js';
import { AppCore, composeFeatures } from './core.js';
import { ServerApp } from './server-app.js';

// The public methods of each app before the SDK was split by feature (sdk/features/): a feature
// left out of an app's composeFeatures list, or composed into the wrong level, shows here.
const CLIENT_METHODS = [
  'acceptTeamInvitation',
  'approveCliLogin',
  'cancelPasskeyRequest',
  'callOAuthCallback',
  'checkTeamInvitationCode',
  'contactChannelsQuery',
  'createContactChannel',
  'createProject',
  'createTeam',
  'createTeamApiKey',
  'createUserApiKey',
  'currentUserQuery',
  'deleteContactChannel',
  'deletePasskey',
  'deleteOAuthProvider',
  'deleteTeam',
  'deleteUser',
  'denyCliLogin',
  'getAccessToken',
  'getAuthHeaders',
  'getAuthTokens',
  'getCliLoginRequest',
  'getConnectedAccount',
  'getProject',
  'getTeam',
  'getTeamApiKey',
  'getTeamInvitationDetails',
  'getTeamMemberProfile',
  'getUser',
  'getUserApiKey',
  'hasPermission',
  'inviteUser',
  'leaveTeam',
  'linkOAuthAccount',
  'listContactChannels',
  'listOAuthProviders',
  'listOwnedProjects',
  'listPasskeys',
  'listProjectPermissions',
  'listSessions',
  'listTeamApiKeys',
  'listTeamInvitations',
  'listTeamMemberProfiles',
  'listTeamPermissions',
  'listTeamUsers',
  'listTeams',
  'listUserApiKeys',
  'oauthProvidersQuery',
  'onSessionChange',
  'ownedProjectsQuery',
  'passkeyAutofillSupported',
  'passkeysQuery',
  'projectPermissionsQuery',
  'promptCliLogin',
  'projectQuery',
  'redirectToSignIn',
  'registerPasskey',
  'removeTeamMember',
  'renamePasskey',
  'requireProjectPermission',
  'resetPassword',
  'revokeSession',
  'revokeTeamApiKey',
  'revokeTeamInvitation',
  'revokeUserApiKey',
  'selectTeam',
  'sendContactChannelVerificationEmail',
  'sendForgotPasswordEmail',
  'sendMagicLinkEmail',
  'sendVerificationEmail',
  'sessionsQuery',
  'setPassword',
  'signInWithMagicLink',
  'signInWithPasskey',
  'signInWithOAuth',
  'signInWithPassword',
  'signOut',
  'signUpAnonymously',
  'signUpWithPassword',
  'subscribe',
  'teamApiKeysQuery',
  'teamInvitationsQuery',
  'teamMemberProfilesQuery',
  'teamPermissionsQuery',
  'teamQuery',
  'teamsQuery',
  'transferProject',
  'updateContactChannel',
  'updateOAuthProvider',
  'updatePassword',
  'updateTeam',
  'updateTeamApiKey',
  'updateTeamMemberProfile',
  'updateUser',
  'updateUserApiKey',
  'userApiKeysQuery',
  'verifyEmail',
  'verifyPasswordResetCode',
];
const SERVER_ONLY_METHODS = [
  'addTeamMember',
  'checkTeamApiKey',
  'checkUserApiKey',
  'createOAuthProvider',
  'createSession',
  'createUser',
  'deleteUserById',
  'getProjectPermissionDefinition',
  'getTeamPermissionDefinition',
  'getUserById',
  'grantProjectPermission',
  'grantTeamPermission',
  'listProjectPermissionDefinitions',
  'listTeamPermissionDefinitions',
  'listUsers',
  'projectPermissionDefinitionsQuery',
  'revokeProjectPermission',
  'revokeTeamPermission',
  'teamPermissionDefinitionsQuery',
  'updateUserById',
  'userQuery',
  'usersQuery',
];
const ADMIN_ONLY_METHODS = [
  'configQuery',
  'createInternalApiKey',
  'createProjectPermissionDefinition',
  'createTeamPermissionDefinition',
  'deleteInternalApiKey',
  'deleteProject',
  'deleteProjectPermissionDefinition',
  'deleteTeamPermissionDefinition',
  'getConfig',
  'getInternalApiKey',
  'getMetrics',
  'getSentEmail',
  'internalApiKeysQuery',
  'listInternalApiKeys',
  'listSentEmails',
  'metricsQuery',
  'overrideConfig',
  'revokeInternalApiKey',
  'sendSignInInvitation',
  'sendTestEmail',
  'sentEmailsQuery',
  'updateInternalApiKey',
  'updateProject',
  'updateProjectPermissionDefinition',
  'updateTeamPermissionDefinition',
];

const options = { projectId: 'p', publishableClientKey: 'pck', secretServerKey: 'ssk', superSecretAdminKey: 'ssak', tokenStore: null };

function missing(app: object, names: string[]): string[] {
  return names.filter((name) => typeof (app as Record<string, unknown>)[name] !== 'function');
}

describe('apps composed from features', () => {
  it('each app has the methods of its level and of the levels below, and none of the levels above', () => {
    const client = new ClientApp(options);
    const server = new ServerApp(options);
    const admin = new AdminApp(options);
    expect(missing(client, CLIENT_METHODS)).toEqual([]);
    expect(missing(server, [...CLIENT_METHODS, ...SERVER_ONLY_METHODS])).toEqual([]);
    expect(missing(admin, [...CLIENT_METHODS, ...SERVER_ONLY_METHODS, ...ADMIN_ONLY_METHODS])).toEqual([]);
    expect(missing(client, [...SERVER_ONLY_METHODS, ...ADMIN_ONLY_METHODS]).length).toBe(SERVER_ONLY_METHODS.length + ADMIN_ONLY_METHODS.length);
    expect(missing(server, ADMIN_ONLY_METHODS).length).toBe(ADMIN_ONLY_METHODS.length);
    expect(admin).toBeInstanceOf(ServerApp);
    expect(server).toBeInstanceOf(ClientApp);
  });

  it('refuses a feature that redefines a method the app has, or builds on a feature the app lacks', () => {
    abstract class Greeting extends AppCore {
      hello(): string {
        return 'hello';
      }
    }
    abstract class Farewell extends Greeting {
      bye(): string {
        return `${this.hello()}, bye`;
      }
    }
    abstract class SignOutAgain extends AppCore {
      async signOut(): Promise<void> {}
    }
    class Twice extends AppCore {}
    composeFeatures(Twice, [Greeting]);
    expect(() => composeFeatures(Twice, [Greeting])).toThrow('Twice.hello is defined twice (again by Greeting).');
    class Lower extends ClientApp {}
    expect(() => composeFeatures(Lower, [SignOutAgain])).toThrow('Lower.signOut is defined twice (again by SignOutAgain).');
    class Lacking extends AppCore {}
    expect(() => composeFeatures(Lacking, [Farewell])).toThrow('Farewell builds on Greeting, which Lacking does not have.');
    // The shape every app has: an interface (the type) and a class (the value) of one name.
    interface Both extends Greeting, Farewell {}
    class Both extends AppCore {}
    composeFeatures(Both, [Greeting, Farewell]);
    expect(new Both(options).bye()).toBe('hello, bye');
  });
});
