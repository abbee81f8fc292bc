// Generated from openapi.json by `npm run openapi` (openapi-typescript); do not edit.
// server/compat/openapi-types.test.ts fails when this file differs from what openapi.json generates.
export interface paths {
    "/auth/anonymous/sign-up": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create an anonymous user (its tokens need x-latch-allow-anonymous-user: true) */
        post: operations["auth-anonymousSignUp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/cli": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a CLI login: a polling code for the CLI, a login code for the confirm page */
        post: operations["auth-cliCreate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/cli/complete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The confirm page: check, approve (mode 'complete', a new session for the CLI) or deny a CLI login */
        post: operations["auth-cliComplete"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/cli/poll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Poll a CLI login: 200 waiting, 201 success with a new refresh token (once); at most one poll a second per code */
        post: operations["auth-cliPoll"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/impersonation/codes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A single-use code (60 s) that opens an impersonation session of a user in the app's /handler/impersonate page */
        post: operations["auth-impersonationCreateCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/impersonation/sign-in": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start an impersonation session with a code from POST /auth/impersonation/codes */
        post: operations["auth-impersonationSignIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/mfa/sign-in": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Finish a sign-in that answered MULTI_FACTOR_AUTHENTICATION_REQUIRED: the attempt code and a TOTP (or recovery) code */
        post: operations["auth-mfaSignIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/oauth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** OAuth 2.0 token endpoint (grant_type=refresh_token, or authorization_code with code, code_verifier and redirect_uri after /auth/oauth/authorize); client_id is the project id, client_secret its publishable key (body or HTTP Basic) */
        post: operations["auth-oauthToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/otp/send-sign-in-code": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Email a magic link and a 6-character sign-in code (magic_link_enabled) */
        post: operations["auth-otpSendSignInCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/otp/sign-in": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign in (or sign up) with a magic link code, or a typed code followed by the nonce */
        post: operations["auth-otpSignIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/passkey/initiate-passkey-authentication": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a passkey sign-in: WebAuthn request options for any discoverable credential, and the challenge's code */
        post: operations["auth-passkeyInitiateAuthentication"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/passkey/initiate-passkey-registration": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start adding a passkey to the signed-in user: WebAuthn creation options (rp.id is the placeholder the client replaces with its hostname) and the challenge's code */
        post: operations["auth-passkeyInitiateRegistration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/passkey/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Finish adding a passkey: the browser's registration response and the challenge's code (the origin must be a trusted domain) */
        post: operations["auth-passkeyRegister"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/passkey/sign-in": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign in with a passkey: the browser's authentication response and the challenge's code */
        post: operations["auth-passkeySignIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/password/reset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Set a new password with a reset code (signs the user out everywhere) */
        post: operations["auth-passwordReset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/password/reset/check-code": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check a password reset code without using it */
        post: operations["auth-passwordResetCheckCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/password/send-reset-code": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Email a password reset link (the same answer whether or not the account exists) */
        post: operations["auth-passwordSendResetCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/password/set": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Set a first password for a user who has none */
        post: operations["auth-passwordSet"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/password/sign-in": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign in with email and password */
        post: operations["auth-passwordSignIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/password/sign-up": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Sign up with email and password */
        post: operations["auth-passwordSignUp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/password/update": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Change the signed-in user's password (signs out their other sessions) */
        post: operations["auth-passwordUpdate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A user's active sessions (clients: their own) */
        get: operations["sessions-list"];
        put?: never;
        /** Create a session for a user (server; impersonation) */
        post: operations["sessions-create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/sessions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke another session of a user */
        delete: operations["sessions-revoke"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/sessions/current": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Sign out: ends the current session */
        delete: operations["sessions-signOut"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/auth/sessions/current/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A new access token for the refresh token in x-latch-refresh-token */
        post: operations["sessions-refresh"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/check-feature-support": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Whether this server and project support a feature (by name and client version), with the reason when not */
        post: operations["featureSupport-check"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/connected-accounts/{user_id}/{provider_id}/access-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** An access token of the user's connected provider account that has the scopes (refreshed when needed) */
        post: operations["oauth-connectedAccessToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/contact-channels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A user's contact channels (user_id defaults to me; clients: only their own) */
        get: operations["contactChannels-list"];
        put?: never;
        /** Add a contact channel to a user (clients: to themselves, unverified, and not used for auth until verified) */
        post: operations["contactChannels-create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/contact-channels/{user_id}/{contact_channel_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One contact channel of a user */
        get: operations["contactChannels-get"];
        put?: never;
        post?: never;
        /** Remove a contact channel (removing the primary one leaves the user without a primary email) */
        delete: operations["contactChannels-delete"];
        options?: never;
        head?: never;
        /** Change a contact channel (a new value is unverified; is_primary moves the primary email) */
        patch: operations["contactChannels-update"];
        trace?: never;
    };
    "/contact-channels/{user_id}/{contact_channel_id}/send-verification-code": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Email a verification link for one contact channel */
        post: operations["contactChannels-sendChannelVerificationCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/contact-channels/send-verification-code": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Email a verification link for the signed-in user's primary email */
        post: operations["contactChannels-sendVerificationCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/contact-channels/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Verify an email with the code from its verification link (no signed-in user needed) */
        post: operations["contactChannels-verify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/data-vault/stores/{store}/get": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Read the encrypted value stored under a hashed key */
        post: operations["dataVault-get"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/data-vault/stores/{store}/set": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Store an encrypted value under a hashed key (both made by the SDK) */
        post: operations["dataVault-set"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/emails/notification-preference/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A user's notification categories with their choice (clients: only their own, `me`) */
        get: operations["notifications-listPreferences"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/emails/notification-preference/{user_id}/{notification_category_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Turn a notification category on or off for a user (a category that cannot be disabled stays on) */
        patch: operations["notifications-updatePreference"];
        trace?: never;
    };
    "/emails/render-email": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Render an email template (or draft) source with an optional theme source and variables, in the sandbox: the editor's live preview */
        post: operations["emails-renderEmail"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/emails/send-email": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Email users (user_ids or all_users) raw html, a template with variables, or a draft: checked and queued at once, rendered per user by jobs, each user's notification preferences respected */
        post: operations["emails-sendEmail"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/ai-chat/{thread_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An AI chat thread's saved messages, oldest first */
        get: operations["aiChat-get"];
        put?: never;
        /** Ask the AI drafting assistant for the next turn: text, and TSX proposals already rendered in the sandbox (not stored; save with PATCH) */
        post: operations["aiChat-ask"];
        delete?: never;
        options?: never;
        head?: never;
        /** Append a message to an AI chat thread */
        patch: operations["aiChat-save"];
        trace?: never;
    };
    "/internal/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The project's key sets (last four characters only) */
        get: operations["apiKeys-list"];
        put?: never;
        /** Create a key set; the full keys are shown only in this response */
        post: operations["apiKeys-create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/api-keys/{api_key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One key set */
        get: operations["apiKeys-get"];
        put?: never;
        post?: never;
        /** Delete a key set */
        delete: operations["apiKeys-delete"];
        options?: never;
        head?: never;
        /** Change the description, or revoke with revoked: true */
        patch: operations["apiKeys-update"];
        trace?: never;
    };
    "/internal/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The effective project config as JSON */
        get: operations["projects-getConfig"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/config/override": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Override config keys from a JSON object (dotted keys set nested values) */
        patch: operations["projects-overrideConfig"];
        trace?: never;
    };
    "/internal/email-drafts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The project drafts, newest first */
        get: operations["emailContent-listDrafts"];
        put?: never;
        /** A new draft */
        post: operations["emailContent-createDraft"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/email-drafts/{draft_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One draft with its source */
        get: operations["emailContent-getDraft"];
        put?: never;
        post?: never;
        /** Delete a draft */
        delete: operations["emailContent-deleteDraft"];
        options?: never;
        head?: never;
        /** Rename a draft, replace its source, or choose its theme */
        patch: operations["emailContent-updateDraft"];
        trace?: never;
    };
    "/internal/email-templates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The built-in emails (editable) and the project own templates */
        get: operations["emailContent-listTemplates"];
        put?: never;
        /** A new template (a built-in type already exists: patch it) */
        post: operations["emailContent-createTemplate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/email-templates/{template_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One template with its source */
        get: operations["emailContent-getTemplate"];
        put?: never;
        post?: never;
        /** Delete a template; a built-in one goes back to its default */
        delete: operations["emailContent-deleteTemplate"];
        options?: never;
        head?: never;
        /** Rename a template, replace its source, or choose its theme */
        patch: operations["emailContent-updateTemplate"];
        trace?: never;
    };
    "/internal/email-themes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The built-in themes (with the project edits) and the project own themes */
        get: operations["emailContent-listThemes"];
        put?: never;
        /** A new theme, starting from the built-in light one */
        post: operations["emailContent-createTheme"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/email-themes/{theme_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One theme with its source */
        get: operations["emailContent-getTheme"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Rename a theme or replace its source (refused with the line when it does not render) */
        patch: operations["emailContent-updateTheme"];
        trace?: never;
    };
    "/internal/emails": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The project's emails, newest first, with their delivery state (without SMTP: the local inbox) */
        get: operations["emails-list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/emails/{email_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One email with its HTML and text */
        get: operations["emails-get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/emails/scheduled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** send-email calls scheduled for later that have not gone out yet, soonest first */
        get: operations["emails-listScheduled"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/emails/send-preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Render a template, draft or theme source (as render-email does) and send it now through the project's own email server to the signed-in owner: the editor's "Send a test to me" */
        post: operations["emails-sendPreview"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/emails/sent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What send-email rendered for each user (or why it skipped one), newest first */
        get: operations["emails-listSent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The project's user totals, sign-ups per day and activity (the console's overview) */
        get: operations["metrics-get"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/notification-categories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The project's notification categories: the built-in two and the owner's */
        get: operations["notifications-listCategories"];
        put?: never;
        /** Add a notification category emails can name */
        post: operations["notifications-createCategory"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/notification-categories/{notification_category_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete an owner's notification category and the preferences users set for it */
        delete: operations["notifications-deleteCategory"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/payments/revenue": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Revenue per UTC day and currency (from/to dates, or the last `days` days; at most 366): purchases and renewals less refunds and disputes on the day they happen, live and test mode apart */
        get: operations["payments-revenue"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/payments/setup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Store the project's Stripe secret key and webhook signing secret (sealed; never returned) */
        post: operations["payments-setup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/payments/stripe-widgets/account-session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A client secret for Stripe's embedded Connect components on the project's account */
        post: operations["payments-stripeAccountSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/payments/stripe/account-info": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The connected Stripe account; 404 STRIPE_ACCOUNT_INFO_NOT_FOUND when none */
        get: operations["payments-stripeAccountInfo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/payments/transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Purchases, renewals, refunds, disputes, failed payments, grants and manual changes, newest first, cursor-paginated */
        get: operations["payments-transactions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/projects": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Projects owned by the signed-in owner (internal project only) */
        get: operations["projects-listOwned"];
        put?: never;
        /** Create a project owned by one of your teams (internal project only) */
        post: operations["projects-createOwned"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/projects/{project_id}/owners": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A project's owners: the members of its owner team (internal project only) */
        get: operations["projects-listOwners"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/projects/{project_id}/owners/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove an owner (yourself included); the last owner cannot be removed (internal project only) */
        delete: operations["projects-removeOwner"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/projects/{project_id}/owners/invitations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Pending invitations to a project's owner team (internal project only) */
        get: operations["projects-listOwnerInvitations"];
        put?: never;
        /** Email an invitation to join a project's owner team; the link opens the console (internal project only) */
        post: operations["projects-inviteOwner"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/projects/{project_id}/owners/invitations/{invitation_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Withdraw an owner invitation (internal project only) */
        delete: operations["projects-revokeOwnerInvitation"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/projects/current": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The current project, admin view */
        get: operations["projects-adminCurrent"];
        put?: never;
        post?: never;
        /** Delete the current project and all of its data */
        delete: operations["projects-deleteCurrent"];
        options?: never;
        head?: never;
        /** Update the current project and its config */
        patch: operations["projects-updateCurrent"];
        trace?: never;
    };
    "/internal/projects/transfer": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Move a project to another of your teams (internal project only) */
        post: operations["projects-transfer"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/send-sign-in-invitation": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Email someone an invitation to sign in (the link is callback_url, a trusted URL) */
        post: operations["emails-sendSignInInvitation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/send-test-email": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Try an email server config: send one email now and report why it failed (a generic reason) */
        post: operations["emails-sendTestEmail"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/webhooks/endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The project's webhook endpoints (secrets are never shown again) */
        get: operations["webhooks-listEndpoints"];
        put?: never;
        /** Add an endpoint; its signing secret is shown only in this response */
        post: operations["webhooks-createEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/webhooks/endpoints/{endpoint_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One endpoint */
        get: operations["webhooks-getEndpoint"];
        put?: never;
        post?: never;
        /** Delete an endpoint */
        delete: operations["webhooks-deleteEndpoint"];
        options?: never;
        head?: never;
        /** Change the URL, description, event types, or enable/disable */
        patch: operations["webhooks-updateEndpoint"];
        trace?: never;
    };
    "/internal/webhooks/endpoints/{endpoint_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The endpoint's deliveries, newest first */
        get: operations["webhooks-listDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/webhooks/endpoints/{endpoint_id}/deliveries/{delivery_id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a delivery's message again */
        post: operations["webhooks-retryDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/webhooks/endpoints/{endpoint_id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send again every event since a time (at most 1000) */
        post: operations["webhooks-replay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/webhooks/endpoints/{endpoint_id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A new signing secret (shown once); the previous one keeps signing beside it during the overlap */
        post: operations["webhooks-rotateSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/webhooks/endpoints/{endpoint_id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a webhook.test event to this endpoint */
        post: operations["webhooks-sendTestEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/workflow-tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The project's workflow tokens, expired ones included (never the tokens themselves) */
        get: operations["workflowTokens-list"];
        put?: never;
        /** A workflow token: server access to this project until it expires; shown only in this response */
        post: operations["workflowTokens-create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/internal/workflow-tokens/{token_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke a workflow token (refused from the next request on) */
        delete: operations["workflowTokens-revoke"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth-providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A user's connected OAuth provider accounts (user_id defaults to me; clients: only their own) */
        get: operations["oauth-listProviders"];
        put?: never;
        /** Connect a provider account to a user by hand (server) */
        post: operations["oauth-createProvider"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/oauth-providers/{user_id}/{provider_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One connected OAuth provider account */
        get: operations["oauth-getProvider"];
        put?: never;
        post?: never;
        /** Disconnect a provider account from its user */
        delete: operations["oauth-deleteProvider"];
        options?: never;
        head?: never;
        /** Change allow_sign_in / allow_connected_accounts (server: email, account_id too) */
        patch: operations["oauth-updateProvider"];
        trace?: never;
    };
    "/passkeys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A user's passkeys (user_id defaults to me; clients: only their own) */
        get: operations["passkeys-list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/passkeys/{user_id}/{passkey_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a passkey (clients: within 5 minutes of signing in; the last one turns passkey sign-in off) */
        delete: operations["passkeys-delete"];
        options?: never;
        head?: never;
        /** Rename a passkey */
        patch: operations["passkeys-update"];
        trace?: never;
    };
    "/payments/billing-portal/{customer_type}/{customer_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A Stripe Billing Portal URL for the customer (subscriptions, payment methods, invoices); clients: their own user, and a team with $update_team */
        post: operations["payments-billingPortal"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payments/items/{customer_type}/{customer_id}/{item_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A customer's quantity of an item (clients: their own user and teams) */
        get: operations["payments-getItem"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payments/items/{customer_type}/{customer_id}/{item_id}/update-quantity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Change an item quantity by delta; a decrease below zero is ITEM_QUANTITY_INSUFFICIENT_AMOUNT unless allow_negative */
        post: operations["payments-updateItemQuantity"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payments/products/{customer_type}/{customer_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A customer's products, cursor-paginated */
        get: operations["payments-listProducts"];
        put?: never;
        /** Grant a product (by product_id or product_inline) to a customer */
        post: operations["payments-grantProduct"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/payments/purchases/create-purchase-url": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A Stripe Checkout URL for a product (test mode: granted at once, answers return_url); clients: for themselves, and for a team with $update_team */
        post: operations["payments-createPurchaseUrl"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/project-permission-definitions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Project permission definitions */
        get: operations["permissions-listProjectDefinitions"];
        put?: never;
        /** Define a project permission, optionally containing others */
        post: operations["permissions-createProjectDefinition"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/project-permission-definitions/{permission_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One project permission definition */
        get: operations["permissions-getProjectDefinition"];
        put?: never;
        post?: never;
        /** Delete a project permission with its grants */
        delete: operations["permissions-deleteProjectDefinition"];
        options?: never;
        head?: never;
        /** Rename a project permission, or change its description or contained permissions */
        patch: operations["permissions-updateProjectDefinition"];
        trace?: never;
    };
    "/project-permissions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Project permissions held, recursively by default (clients: their own) */
        get: operations["permissions-listProjectPermissions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/project-permissions/{user_id}/{permission_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Grant a project permission to a user */
        post: operations["permissions-grantProjectPermission"];
        /** Revoke a directly granted project permission */
        delete: operations["permissions-revokeProjectPermission"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/projects/{project_id}/.well-known/jwks.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Public keys that verify the project's access tokens */
        get: operations["sessions-jwks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/projects/current": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The current project (public fields and client config) */
        get: operations["projects-current"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/team-api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A team's API keys (clients: with $manage_api_keys) */
        get: operations["userTeamApiKeys-listTeamKeys"];
        put?: never;
        /** Create a team API key (when allow_team_api_keys; clients: with $manage_api_keys); the full key is in this response only */
        post: operations["userTeamApiKeys-createTeamKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/team-api-keys/{api_key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One team API key (last four characters only) */
        get: operations["userTeamApiKeys-getTeamKey"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change the description or expiry of a team API key, or revoke it (revoked: true) */
        patch: operations["userTeamApiKeys-updateTeamKey"];
        trace?: never;
    };
    "/team-api-keys/check": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check a team API key: the key, or API_KEY_REVOKED / API_KEY_EXPIRED / API_KEY_NOT_FOUND / WRONG_API_KEY_TYPE */
        post: operations["userTeamApiKeys-checkTeamKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/team-invitations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A team's pending invitations (clients: with $read_members and $invite_members) */
        get: operations["teamInvitations-list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/team-invitations/{invitation_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Withdraw an invitation (clients: with $remove_members) */
        delete: operations["teamInvitations-revoke"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/team-invitations/accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Accept an invitation for the signed-in user and join the team */
        post: operations["teamInvitations-accept"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/team-invitations/accept/check-code": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check an invitation code without using it */
        post: operations["teamInvitations-checkCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/team-invitations/accept/details": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The team an invitation code is for */
        post: operations["teamInvitations-details"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/team-invitations/send-code": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Email an invitation to join a team (clients: with $invite_members) */
        post: operations["teamInvitations-sendCode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/team-member-profiles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Member profiles by team and/or user (clients: their own, or a team's with $read_members) */
        get: operations["teams-listMemberProfiles"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/team-member-profiles/{team_id}/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A member's profile in a team (clients: their own, or with $read_members) */
        get: operations["teams-getMemberProfile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Update a member's display name or image in a team (clients: their own) */
        patch: operations["teams-updateMemberProfile"];
        trace?: never;
    };
    "/team-memberships/{team_id}/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Add a user to a team (with team_member_default_permissions) */
        post: operations["teams-addMember"];
        /** Remove a member (clients: themselves, or others with $remove_members) */
        delete: operations["teams-removeMember"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/team-memberships/{team_id}/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Leave a team */
        delete: operations["teams-leave"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/team-permission-definitions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Team permission definitions, system permissions first */
        get: operations["permissions-listTeamDefinitions"];
        put?: never;
        /** Define a team permission, optionally containing others */
        post: operations["permissions-createTeamDefinition"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/team-permission-definitions/{permission_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One team permission definition */
        get: operations["permissions-getTeamDefinition"];
        put?: never;
        post?: never;
        /** Delete a team permission with its grants */
        delete: operations["permissions-deleteTeamDefinition"];
        options?: never;
        head?: never;
        /** Rename a team permission, or change its description or contained permissions */
        patch: operations["permissions-updateTeamDefinition"];
        trace?: never;
    };
    "/team-permissions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Team permissions held, recursively by default (clients: their own) */
        get: operations["permissions-listTeamPermissions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/team-permissions/{team_id}/{user_id}/{permission_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Grant a team permission to a member */
        post: operations["permissions-grantTeamPermission"];
        /** Revoke a directly granted team permission */
        delete: operations["permissions-revokeTeamPermission"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/teams": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Teams (clients: their own; server: all, or one user's with user_id) */
        get: operations["teams-list"];
        put?: never;
        /** Create a team; the creator joins it and selects it (clients: when client_team_creation_enabled) */
        post: operations["teams-create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/teams/{team_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A team (clients: only teams they are in) */
        get: operations["teams-get"];
        put?: never;
        post?: never;
        /** Delete a team with its memberships, invitations and API keys (clients: with $delete_team) */
        delete: operations["teams-delete"];
        options?: never;
        head?: never;
        /** Update a team (clients: with $update_team, client fields only) */
        patch: operations["teams-update"];
        trace?: never;
    };
    "/user-api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A user's API keys (clients: their own) */
        get: operations["userTeamApiKeys-listUserKeys"];
        put?: never;
        /** Create a user API key (when allow_user_api_keys); the full key is in this response only */
        post: operations["userTeamApiKeys-createUserKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/user-api-keys/{api_key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One user API key (last four characters only) */
        get: operations["userTeamApiKeys-getUserKey"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change the description or expiry of a user API key, or revoke it (revoked: true) */
        patch: operations["userTeamApiKeys-updateUserKey"];
        trace?: never;
    };
    "/user-api-keys/check": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Check a user API key: the key, or API_KEY_REVOKED / API_KEY_EXPIRED / API_KEY_NOT_FOUND / WRONG_API_KEY_TYPE */
        post: operations["userTeamApiKeys-checkUserKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List users, cursor-paginated; search by email, name or id */
        get: operations["users-list"];
        put?: never;
        /** Create a user (with a password or an imported bcrypt/argon2id hash) */
        post: operations["users-create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A user by id (clients: only themselves) */
        get: operations["users-get"];
        put?: never;
        post?: never;
        /** Delete a user and everything of theirs */
        delete: operations["users-delete"];
        options?: never;
        head?: never;
        /** Update a user (clients: only themselves, client fields only) */
        patch: operations["users-update"];
        trace?: never;
    };
    "/users/{user_id}/mfa": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A user's TOTP MFA: on or off, enrolment pending, recovery codes left and last used */
        get: operations["mfa-status"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users/{user_id}/mfa/totp/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Turn TOTP MFA off (clients: with a TOTP code, a recovery code or a sign-in in the last 5 minutes; server and admin: a reset) */
        post: operations["mfa-disableTotp"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The signed-in user */
        get: operations["users-getMe"];
        put?: never;
        post?: never;
        /** Delete the signed-in user (clients: when client_user_deletion_enabled) */
        delete: operations["users-deleteMe"];
        options?: never;
        head?: never;
        /** Update the signed-in user */
        patch: operations["users-updateMe"];
        trace?: never;
    };
    "/users/me/mfa/recovery-codes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replace the recovery codes (shown once; needs a TOTP code, a recovery code or a sign-in in the last 5 minutes) */
        post: operations["mfa-regenerateRecoveryCodes"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users/me/mfa/totp/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Confirm TOTP enrolment with a current code: MFA is on, and 10 recovery codes are returned once */
        post: operations["mfa-confirmTotpEnrollment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/users/me/mfa/totp/enroll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start TOTP enrolment: a new secret and its otpauth:// URI, pending until confirmed (with MFA on: a TOTP code, a recovery code or a sign-in in the last 5 minutes) */
        post: operations["mfa-startTotpEnrollment"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/latch-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** The webhook-service token: a JWT good for one hour on this project's /internal/webhooks/* routes only (send it as x-latch-admin-access-token) */
        post: operations["webhooks-serviceToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        __schema0: unknown;
        __schema1: unknown;
        __schema2: unknown;
        __schema3: unknown;
        __schema4: unknown;
        __schema5: unknown;
        __schema6: unknown;
        __schema7: unknown;
        Error: {
            /** @description Catalogued error code; also in the x-latch-known-error header. */
            code: string;
            details?: {
                [key: string]: unknown;
            };
            /** @description A message for humans. */
            error: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description The catalogued error code (as in the body). */
        KnownError: string;
        /** @description The same code under the name the Stack Auth SDKs read (README, "Migrating from Stack Auth"). */
        StackKnownError: string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    "auth-anonymousSignUp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "access_token": "eyJhbGciOiJFUzI1NiIsImtpZCI6Ii4uLiJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl",
                     *       "refresh_token": "bGF0Y2ggZXhhbXBsZSByZWZyZXNoIHRva2VuIQ",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "is_new_user": true
                     *     }
                     */
                    "application/json": {
                        access_token: string;
                        refresh_token: string;
                        user_id: string;
                        is_new_user: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `ANONYMOUS_ACCOUNTS_NOT_ENABLED`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `CLIENT_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-cliCreate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "expires_in_millis": 1000
                 *     }
                 */
                "application/json": {
                    expires_in_millis?: number;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "polling_code": "example",
                     *       "login_code": "example",
                     *       "expires_at": 1
                     *     }
                     */
                    "application/json": {
                        polling_code: string;
                        login_code: string;
                        expires_at: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CLI_AUTH_ERROR`, `CLI_AUTH_EXPIRED_ERROR`, `CLI_AUTH_USED_ERROR`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `INVALID_POLLING_CODE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `CLIENT_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED`, `UNPARSABLE_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-cliComplete": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "login_code": "example",
                 *       "mode": "check",
                 *       "refresh_token": "bGF0Y2ggZXhhbXBsZSByZWZyZXNoIHRva2VuIQ"
                 *     }
                 */
                "application/json": {
                    login_code: string;
                    /** @enum {string} */
                    mode?: "check" | "complete" | "deny";
                    refresh_token?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "waiting",
                     *       "project_display_name": "Ada Lovelace",
                     *       "requested_at": 1,
                     *       "requester_ip": "example",
                     *       "expires_at": 1
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        status: "waiting" | "approved" | "denied";
                        project_display_name: string;
                        requested_at: number;
                        requester_ip: string | null;
                        expires_at: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CLI_AUTH_ERROR`, `CLI_AUTH_EXPIRED_ERROR`, `CLI_AUTH_USED_ERROR`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `INVALID_POLLING_CODE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-cliPoll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "polling_code": "example"
                 *     }
                 */
                "application/json": {
                    polling_code: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "waiting",
                     *       "refresh_token": "bGF0Y2ggZXhhbXBsZSByZWZyZXNoIHRva2VuIQ"
                     *     }
                     */
                    "application/json": {
                        /** @enum {string} */
                        status: "waiting" | "success";
                        refresh_token?: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CLI_AUTH_ERROR`, `CLI_AUTH_EXPIRED_ERROR`, `CLI_AUTH_USED_ERROR`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `INVALID_POLLING_CODE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `CLIENT_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED`, `UNPARSABLE_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-impersonationCreateCode": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "session_expires_in_millis": 60000
                 *     }
                 */
                "application/json": {
                    user_id: string;
                    session_expires_in_millis?: number;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "code": "ABC123",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "expires_at_millis": 1767225600000
                     *     }
                     */
                    "application/json": {
                        code: string;
                        user_id: string;
                        expires_at_millis: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `USER_ID_DOES_NOT_EXIST`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-impersonationSignIn": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "code": "ABC123"
                 *     }
                 */
                "application/json": {
                    code: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "access_token": "eyJhbGciOiJFUzI1NiIsImtpZCI6Ii4uLiJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl",
                     *       "refresh_token": "bGF0Y2ggZXhhbXBsZSByZWZyZXNoIHRva2VuIQ",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "is_new_user": true
                     *     }
                     */
                    "application/json": {
                        access_token: string;
                        refresh_token: string;
                        user_id: string;
                        is_new_user: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `USER_ID_DOES_NOT_EXIST`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `CLIENT_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-mfaSignIn": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "type": "totp",
                 *       "totp": "example",
                 *       "recovery_code": "example",
                 *       "code": "ABC123"
                 *     }
                 */
                "application/json": {
                    /**
                     * @default totp
                     * @enum {string}
                     */
                    type?: "totp" | "recovery_code";
                    totp?: string;
                    recovery_code?: string;
                    code: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "access_token": "eyJhbGciOiJFUzI1NiIsImtpZCI6Ii4uLiJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl",
                     *       "refresh_token": "bGF0Y2ggZXhhbXBsZSByZWZyZXNoIHRva2VuIQ",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "is_new_user": true
                     *     }
                     */
                    "application/json": {
                        access_token: string;
                        refresh_token: string;
                        user_id: string;
                        is_new_user: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `INVALID_TOTP_CODE`, `MAX_ATTEMPTS_REACHED`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `CLIENT_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-oauthToken": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "grant_type": "refresh_token",
                 *       "refresh_token": "bGF0Y2ggZXhhbXBsZSByZWZyZXNoIHRva2VuIQ",
                 *       "code": "ABC123",
                 *       "code_verifier": "example",
                 *       "redirect_uri": "example",
                 *       "client_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "client_secret": "example"
                 *     }
                 */
                "application/x-www-form-urlencoded": {
                    /** @enum {string} */
                    grant_type: "refresh_token" | "authorization_code";
                    /** @description refresh_token grant */
                    refresh_token?: string;
                    /** @description authorization_code grant */
                    code?: string;
                    /** @description authorization_code grant (PKCE S256) */
                    code_verifier?: string;
                    /** @description authorization_code grant: as sent to /auth/oauth/authorize */
                    redirect_uri?: string;
                    client_id?: string;
                    client_secret?: string;
                };
                /**
                 * @example {
                 *       "grant_type": "refresh_token",
                 *       "refresh_token": "bGF0Y2ggZXhhbXBsZSByZWZyZXNoIHRva2VuIQ",
                 *       "code": "ABC123",
                 *       "code_verifier": "example",
                 *       "redirect_uri": "example",
                 *       "client_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "client_secret": "example"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    grant_type: "refresh_token" | "authorization_code";
                    /** @description refresh_token grant */
                    refresh_token?: string;
                    /** @description authorization_code grant */
                    code?: string;
                    /** @description authorization_code grant (PKCE S256) */
                    code_verifier?: string;
                    /** @description authorization_code grant: as sent to /auth/oauth/authorize */
                    redirect_uri?: string;
                    client_id?: string;
                    client_secret?: string;
                };
            };
        };
        responses: {
            /** @description A new access token */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "access_token": "eyJhbGciOiJFUzI1NiIsImtpZCI6Ii4uLiJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl",
                     *       "token_type": "example",
                     *       "expires_in": 1,
                     *       "refresh_token": "bGF0Y2ggZXhhbXBsZSByZWZyZXNoIHRva2VuIQ",
                     *       "scope": "example",
                     *       "id_token": "example",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "is_new_user": true,
                     *       "after_callback_redirect_url": "https://app.example.com/handler"
                     *     }
                     */
                    "application/json": {
                        access_token: string;
                        token_type: string;
                        expires_in: number;
                        refresh_token: string;
                        scope?: string;
                        /** @description authorization_code grant */
                        id_token?: string;
                        /** @description authorization_code grant */
                        user_id?: string;
                        /** @description authorization_code grant */
                        is_new_user?: boolean;
                        /** @description authorization_code grant */
                        after_callback_redirect_url?: string | null;
                    };
                };
            };
            /** @description `SCHEMA_ERROR`, `BODY_PARSING_ERROR`, `INVALID_OAUTH_CLIENT_ID_OR_SECRET`, `INVALID_AUTHORIZATION_CODE` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-otpSendSignInCode": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com",
                 *       "callback_url": "https://app.example.com/handler"
                 *     }
                 */
                "application/json": {
                    email: string;
                    callback_url: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "nonce": "ABC123"
                     *     }
                     */
                    "application/json": {
                        nonce: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAGIC_LINK_AUTHENTICATION_NOT_ENABLED`, `MAX_ATTEMPTS_REACHED`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `OTP_AUTHENTICATION_NOT_ENABLED_FOR_USER`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `SIGN_UP_NOT_ENABLED`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `CLIENT_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-otpSignIn": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "code": "ABC123"
                 *     }
                 */
                "application/json": {
                    code: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "access_token": "eyJhbGciOiJFUzI1NiIsImtpZCI6Ii4uLiJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl",
                     *       "refresh_token": "bGF0Y2ggZXhhbXBsZSByZWZyZXNoIHRva2VuIQ",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "is_new_user": true
                     *     }
                     */
                    "application/json": {
                        access_token: string;
                        refresh_token: string;
                        user_id: string;
                        is_new_user: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAGIC_LINK_AUTHENTICATION_NOT_ENABLED`, `MAX_ATTEMPTS_REACHED`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `OTP_AUTHENTICATION_NOT_ENABLED_FOR_USER`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `SIGN_UP_NOT_ENABLED`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `CLIENT_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-passkeyInitiateAuthentication": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "options_json": {},
                     *       "code": "ABC123"
                     *     }
                     */
                    "application/json": {
                        options_json: {
                            [key: string]: unknown;
                        };
                        code: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `PASSKEY_AUTHENTICATION_FAILED`, `PASSKEY_AUTHENTICATION_NOT_ENABLED`, `PASSKEY_REGISTRATION_FAILED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `SIGN_UP_NOT_ENABLED`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `CLIENT_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-passkeyInitiateRegistration": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "options_json": {},
                     *       "code": "ABC123"
                     *     }
                     */
                    "application/json": {
                        options_json: {
                            [key: string]: unknown;
                        };
                        code: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `PASSKEY_AUTHENTICATION_FAILED`, `PASSKEY_AUTHENTICATION_NOT_ENABLED`, `PASSKEY_REGISTRATION_FAILED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `SIGN_UP_NOT_ENABLED`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-passkeyRegister": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "credential": {
                 *         "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *         "rawId": "example",
                 *         "type": "public-key",
                 *         "response": {
                 *           "clientDataJSON": "example",
                 *           "attestationObject": "example"
                 *         },
                 *         "authenticatorAttachment": "platform",
                 *         "clientExtensionResults": {}
                 *       },
                 *       "code": "ABC123",
                 *       "name": "Example"
                 *     }
                 */
                "application/json": {
                    credential: {
                        id: string;
                        rawId: string;
                        /** @constant */
                        type: "public-key";
                        response: {
                            clientDataJSON: string;
                            attestationObject: string;
                            authenticatorData?: string;
                            transports?: string[];
                            publicKeyAlgorithm?: number;
                            publicKey?: string;
                        };
                        /** @enum {string} */
                        authenticatorAttachment?: "platform" | "cross-platform";
                        /** @default {} */
                        clientExtensionResults?: {
                            [key: string]: unknown;
                        };
                    };
                    code: string;
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "name": "Example",
                     *       "rp_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "device_type": "example",
                     *       "backed_up": true,
                     *       "created_at_millis": 1767225600000,
                     *       "last_used_at_millis": 1767225600000
                     *     }
                     */
                    "application/json": {
                        id: string;
                        user_id: string;
                        name: string;
                        rp_id: string;
                        device_type: string;
                        backed_up: boolean;
                        created_at_millis: number;
                        last_used_at_millis: number | null;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `PASSKEY_AUTHENTICATION_FAILED`, `PASSKEY_AUTHENTICATION_NOT_ENABLED`, `PASSKEY_REGISTRATION_FAILED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `SIGN_UP_NOT_ENABLED`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-passkeySignIn": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "authentication_response": {
                 *         "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *         "rawId": "example",
                 *         "type": "public-key",
                 *         "response": {
                 *           "clientDataJSON": "example",
                 *           "authenticatorData": "example",
                 *           "signature": "example"
                 *         },
                 *         "authenticatorAttachment": "platform",
                 *         "clientExtensionResults": {}
                 *       },
                 *       "code": "ABC123"
                 *     }
                 */
                "application/json": {
                    authentication_response: {
                        id: string;
                        rawId: string;
                        /** @constant */
                        type: "public-key";
                        response: {
                            clientDataJSON: string;
                            authenticatorData: string;
                            signature: string;
                            userHandle?: string;
                        };
                        /** @enum {string} */
                        authenticatorAttachment?: "platform" | "cross-platform";
                        /** @default {} */
                        clientExtensionResults?: {
                            [key: string]: unknown;
                        };
                    };
                    code: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "access_token": "eyJhbGciOiJFUzI1NiIsImtpZCI6Ii4uLiJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl",
                     *       "refresh_token": "bGF0Y2ggZXhhbXBsZSByZWZyZXNoIHRva2VuIQ",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "is_new_user": true
                     *     }
                     */
                    "application/json": {
                        access_token: string;
                        refresh_token: string;
                        user_id: string;
                        is_new_user: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `PASSKEY_AUTHENTICATION_FAILED`, `PASSKEY_AUTHENTICATION_NOT_ENABLED`, `PASSKEY_REGISTRATION_FAILED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `SIGN_UP_NOT_ENABLED`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `CLIENT_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-passwordReset": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "code": "ABC123",
                 *       "password": "correct-horse-battery-staple"
                 *     }
                 */
                "application/json": {
                    code: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PASSWORD_MISMATCH`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `PASSWORD_AUTHENTICATION_NOT_ENABLED`, `PASSWORD_CONFIRMATION_MISMATCH`, `PASSWORD_REQUIREMENTS_NOT_MET`, `PASSWORD_TOO_LONG`, `PASSWORD_TOO_SHORT`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `SIGN_UP_NOT_ENABLED`, `USER_ALREADY_HAS_PASSWORD`, `USER_DOES_NOT_HAVE_PASSWORD`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `USER_EMAIL_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-passwordResetCheckCode": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "code": "ABC123"
                 *     }
                 */
                "application/json": {
                    code: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "is_code_valid": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        is_code_valid: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PASSWORD_MISMATCH`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `PASSWORD_AUTHENTICATION_NOT_ENABLED`, `PASSWORD_CONFIRMATION_MISMATCH`, `PASSWORD_REQUIREMENTS_NOT_MET`, `PASSWORD_TOO_LONG`, `PASSWORD_TOO_SHORT`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `SIGN_UP_NOT_ENABLED`, `USER_ALREADY_HAS_PASSWORD`, `USER_DOES_NOT_HAVE_PASSWORD`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `USER_EMAIL_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-passwordSendResetCode": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com",
                 *       "callback_url": "https://app.example.com/handler"
                 *     }
                 */
                "application/json": {
                    email: string;
                    callback_url: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PASSWORD_MISMATCH`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `PASSWORD_AUTHENTICATION_NOT_ENABLED`, `PASSWORD_CONFIRMATION_MISMATCH`, `PASSWORD_REQUIREMENTS_NOT_MET`, `PASSWORD_TOO_LONG`, `PASSWORD_TOO_SHORT`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `SIGN_UP_NOT_ENABLED`, `USER_ALREADY_HAS_PASSWORD`, `USER_DOES_NOT_HAVE_PASSWORD`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `USER_EMAIL_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-passwordSet": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "password": "correct-horse-battery-staple"
                 *     }
                 */
                "application/json": {
                    password: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PASSWORD_MISMATCH`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `PASSWORD_AUTHENTICATION_NOT_ENABLED`, `PASSWORD_CONFIRMATION_MISMATCH`, `PASSWORD_REQUIREMENTS_NOT_MET`, `PASSWORD_TOO_LONG`, `PASSWORD_TOO_SHORT`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `SIGN_UP_NOT_ENABLED`, `USER_ALREADY_HAS_PASSWORD`, `USER_DOES_NOT_HAVE_PASSWORD`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `USER_EMAIL_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-passwordSignIn": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com",
                 *       "password": "correct-horse-battery-staple"
                 *     }
                 */
                "application/json": {
                    email: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "access_token": "eyJhbGciOiJFUzI1NiIsImtpZCI6Ii4uLiJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl",
                     *       "refresh_token": "bGF0Y2ggZXhhbXBsZSByZWZyZXNoIHRva2VuIQ",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "is_new_user": true
                     *     }
                     */
                    "application/json": {
                        access_token: string;
                        refresh_token: string;
                        user_id: string;
                        is_new_user: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PASSWORD_MISMATCH`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `PASSWORD_AUTHENTICATION_NOT_ENABLED`, `PASSWORD_CONFIRMATION_MISMATCH`, `PASSWORD_REQUIREMENTS_NOT_MET`, `PASSWORD_TOO_LONG`, `PASSWORD_TOO_SHORT`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `SIGN_UP_NOT_ENABLED`, `USER_ALREADY_HAS_PASSWORD`, `USER_DOES_NOT_HAVE_PASSWORD`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `CLIENT_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `USER_EMAIL_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-passwordSignUp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com",
                 *       "password": "correct-horse-battery-staple",
                 *       "verification_callback_url": "https://app.example.com/handler"
                 *     }
                 */
                "application/json": {
                    email: string;
                    password: string;
                    verification_callback_url?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "access_token": "eyJhbGciOiJFUzI1NiIsImtpZCI6Ii4uLiJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl",
                     *       "refresh_token": "bGF0Y2ggZXhhbXBsZSByZWZyZXNoIHRva2VuIQ",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "is_new_user": true
                     *     }
                     */
                    "application/json": {
                        access_token: string;
                        refresh_token: string;
                        user_id: string;
                        is_new_user: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PASSWORD_MISMATCH`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `PASSWORD_AUTHENTICATION_NOT_ENABLED`, `PASSWORD_CONFIRMATION_MISMATCH`, `PASSWORD_REQUIREMENTS_NOT_MET`, `PASSWORD_TOO_LONG`, `PASSWORD_TOO_SHORT`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `SIGN_UP_NOT_ENABLED`, `USER_ALREADY_HAS_PASSWORD`, `USER_DOES_NOT_HAVE_PASSWORD`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `CLIENT_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `USER_EMAIL_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "auth-passwordUpdate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "old_password": "correct-horse-battery-staple",
                 *       "new_password": "correct-horse-battery-staple"
                 *     }
                 */
                "application/json": {
                    old_password: string;
                    new_password: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PASSWORD_MISMATCH`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `PASSWORD_AUTHENTICATION_NOT_ENABLED`, `PASSWORD_CONFIRMATION_MISMATCH`, `PASSWORD_REQUIREMENTS_NOT_MET`, `PASSWORD_TOO_LONG`, `PASSWORD_TOO_SHORT`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `SIGN_UP_NOT_ENABLED`, `USER_ALREADY_HAS_PASSWORD`, `USER_DOES_NOT_HAVE_PASSWORD`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `USER_EMAIL_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "sessions-list": {
        parameters: {
            query?: {
                /** @example me */
                user_id?: "me" | string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "created_at": 1,
                     *           "is_impersonation": true,
                     *           "last_used_at": 1,
                     *           "is_current_session": true,
                     *           "last_used_at_end_user_ip_info": {
                     *             "ip": "example"
                     *           }
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            user_id: string;
                            created_at: number;
                            is_impersonation: boolean;
                            last_used_at: number | null;
                            is_current_session: boolean;
                            last_used_at_end_user_ip_info: {
                                ip: string;
                            } | null;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_DELETE_CURRENT_SESSION`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `USER_ID_DOES_NOT_EXIST` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PROJECT_NOT_FOUND`, `SESSION_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "sessions-create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "expires_in_millis": 1000,
                 *       "is_impersonation": true
                 *     }
                 */
                "application/json": {
                    user_id: string;
                    expires_in_millis?: number;
                    is_impersonation?: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "access_token": "eyJhbGciOiJFUzI1NiIsImtpZCI6Ii4uLiJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl",
                     *       "refresh_token": "bGF0Y2ggZXhhbXBsZSByZWZyZXNoIHRva2VuIQ"
                     *     }
                     */
                    "application/json": {
                        access_token: string;
                        refresh_token: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_DELETE_CURRENT_SESSION`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `USER_ID_DOES_NOT_EXIST` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PROJECT_NOT_FOUND`, `SESSION_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "sessions-revoke": {
        parameters: {
            query?: {
                /** @example me */
                user_id?: "me" | string;
            };
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_DELETE_CURRENT_SESSION`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `USER_ID_DOES_NOT_EXIST` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PROJECT_NOT_FOUND`, `SESSION_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "sessions-signOut": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_DELETE_CURRENT_SESSION`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `USER_ID_DOES_NOT_EXIST` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PROJECT_NOT_FOUND`, `SESSION_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "sessions-refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "access_token": "eyJhbGciOiJFUzI1NiIsImtpZCI6Ii4uLiJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl"
                     *     }
                     */
                    "application/json": {
                        access_token: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_DELETE_CURRENT_SESSION`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `USER_ID_DOES_NOT_EXIST` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PROJECT_NOT_FOUND`, `SESSION_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "featureSupport-check": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "feature_name": "example",
                 *       "client_version": "example"
                 *     }
                 */
                "application/json": {
                    feature_name: string;
                    client_version?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "feature_name": "example",
                     *       "supported": true,
                     *       "reason": "example",
                     *       "server_version": "example"
                     *     }
                     */
                    "application/json": {
                        feature_name: string;
                        supported: boolean;
                        reason: string | null;
                        server_version: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "oauth-connectedAccessToken": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example me */
                user_id: "me" | string;
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                provider_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "scope": "example"
                 *     }
                 */
                "application/json": {
                    scope?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "access_token": "eyJhbGciOiJFUzI1NiIsImtpZCI6Ii4uLiJ9.eyJzdWIiOiIuLi4ifQ.c2lnbmF0dXJl"
                     *     }
                     */
                    "application/json": {
                        access_token: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `INVALID_AUTHORIZATION_CODE`, `INVALID_OAUTH_CLIENT_ID_OR_SECRET`, `INVALID_SHARED_OAUTH_PROVIDER_ID`, `INVALID_STANDARD_OAUTH_PROVIDER_ID`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS`, `OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE`, `OAUTH_CONNECTION_NOT_CONNECTED_TO_USER`, `OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS`, `OAUTH_PROVIDER_ACCESS_DENIED`, `OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN`, `OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `SHARED_OAUTH_KEYS_NOT_CONFIGURED`, `SIGN_UP_NOT_ENABLED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PROVIDER_REJECTED`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `OUTER_OAUTH_TIMEOUT` */
            408: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE`, `OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER`, `USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `OAUTH_PROVIDER_REQUEST_FAILED` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "contactChannels-list": {
        parameters: {
            query?: {
                /** @example me */
                user_id?: "me" | string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "type": "email",
                     *           "value": "example",
                     *           "is_primary": true,
                     *           "is_verified": true,
                     *           "used_for_auth": true
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            user_id: string;
                            /** @constant */
                            type: "email";
                            value: string;
                            is_primary: boolean;
                            is_verified: boolean;
                            used_for_auth: boolean;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_IS_NOT_PRIMARY_EMAIL`, `EMAIL_NOT_VERIFIED`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `CONTACT_CHANNEL_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `CONTACT_CHANNEL_ALREADY_EXISTS`, `CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE`, `EMAIL_ALREADY_VERIFIED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "contactChannels-create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user_id": "me",
                 *       "type": "email",
                 *       "value": "example",
                 *       "used_for_auth": true,
                 *       "is_primary": true,
                 *       "is_verified": true
                 *     }
                 */
                "application/json": {
                    user_id: "me" | string;
                    /** @constant */
                    type: "email";
                    value: string;
                    used_for_auth: boolean;
                    is_primary?: boolean;
                    is_verified?: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "type": "email",
                     *       "value": "example",
                     *       "is_primary": true,
                     *       "is_verified": true,
                     *       "used_for_auth": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        user_id: string;
                        /** @constant */
                        type: "email";
                        value: string;
                        is_primary: boolean;
                        is_verified: boolean;
                        used_for_auth: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_IS_NOT_PRIMARY_EMAIL`, `EMAIL_NOT_VERIFIED`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `CONTACT_CHANNEL_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `CONTACT_CHANNEL_ALREADY_EXISTS`, `CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE`, `EMAIL_ALREADY_VERIFIED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "contactChannels-get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example me */
                user_id: "me" | string;
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                contact_channel_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "type": "email",
                     *       "value": "example",
                     *       "is_primary": true,
                     *       "is_verified": true,
                     *       "used_for_auth": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        user_id: string;
                        /** @constant */
                        type: "email";
                        value: string;
                        is_primary: boolean;
                        is_verified: boolean;
                        used_for_auth: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_IS_NOT_PRIMARY_EMAIL`, `EMAIL_NOT_VERIFIED`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `CONTACT_CHANNEL_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `CONTACT_CHANNEL_ALREADY_EXISTS`, `CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE`, `EMAIL_ALREADY_VERIFIED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "contactChannels-delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example me */
                user_id: "me" | string;
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                contact_channel_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_IS_NOT_PRIMARY_EMAIL`, `EMAIL_NOT_VERIFIED`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `CONTACT_CHANNEL_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `CONTACT_CHANNEL_ALREADY_EXISTS`, `CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE`, `EMAIL_ALREADY_VERIFIED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "contactChannels-update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example me */
                user_id: "me" | string;
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                contact_channel_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "value": "example",
                 *       "used_for_auth": true,
                 *       "is_primary": true,
                 *       "is_verified": true
                 *     }
                 */
                "application/json": {
                    value?: string;
                    used_for_auth?: boolean;
                    is_primary?: boolean;
                    is_verified?: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "type": "email",
                     *       "value": "example",
                     *       "is_primary": true,
                     *       "is_verified": true,
                     *       "used_for_auth": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        user_id: string;
                        /** @constant */
                        type: "email";
                        value: string;
                        is_primary: boolean;
                        is_verified: boolean;
                        used_for_auth: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_IS_NOT_PRIMARY_EMAIL`, `EMAIL_NOT_VERIFIED`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `CONTACT_CHANNEL_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `CONTACT_CHANNEL_ALREADY_EXISTS`, `CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE`, `EMAIL_ALREADY_VERIFIED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "contactChannels-sendChannelVerificationCode": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example me */
                user_id: "me" | string;
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                contact_channel_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "callback_url": "https://app.example.com/handler"
                 *     }
                 */
                "application/json": {
                    callback_url: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_IS_NOT_PRIMARY_EMAIL`, `EMAIL_NOT_VERIFIED`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `CONTACT_CHANNEL_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `CONTACT_CHANNEL_ALREADY_EXISTS`, `CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE`, `EMAIL_ALREADY_VERIFIED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "contactChannels-sendVerificationCode": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com",
                 *       "callback_url": "https://app.example.com/handler"
                 *     }
                 */
                "application/json": {
                    email: string;
                    callback_url: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_IS_NOT_PRIMARY_EMAIL`, `EMAIL_NOT_VERIFIED`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `CONTACT_CHANNEL_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `CONTACT_CHANNEL_ALREADY_EXISTS`, `CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE`, `EMAIL_ALREADY_VERIFIED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "contactChannels-verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "code": "ABC123"
                 *     }
                 */
                "application/json": {
                    code: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_IS_NOT_PRIMARY_EMAIL`, `EMAIL_NOT_VERIFIED`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `CONTACT_CHANNEL_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `CONTACT_CHANNEL_ALREADY_EXISTS`, `CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE`, `EMAIL_ALREADY_VERIFIED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "dataVault-get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example example */
                store: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "hashed_key": "example"
                 *     }
                 */
                "application/json": {
                    hashed_key: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "encrypted_value": "example"
                     *     }
                     */
                    "application/json": {
                        encrypted_value: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `DATA_VAULT_STORE_DOES_NOT_EXIST`, `DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "dataVault-set": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example example */
                store: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "hashed_key": "example",
                 *       "encrypted_value": "example"
                 *     }
                 */
                "application/json": {
                    hashed_key: string;
                    encrypted_value: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `DATA_VAULT_STORE_DOES_NOT_EXIST`, `DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "notifications-listPreferences": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example me */
                user_id: "me" | string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "notification_category_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "notification_category_name": "example",
                     *           "enabled": true,
                     *           "can_disable": true
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            notification_category_id: string;
                            notification_category_name: string;
                            enabled: boolean;
                            can_disable: boolean;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `NOTIFICATION_CATEGORY_CANNOT_BE_DISABLED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `UNSUBSCRIBE_LINK_INVALID` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `NOTIFICATION_CATEGORY_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `NOTIFICATION_CATEGORY_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "notifications-updatePreference": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example me */
                user_id: "me" | string;
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                notification_category_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "enabled": true
                 *     }
                 */
                "application/json": {
                    enabled: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "notification_category_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "notification_category_name": "example",
                     *       "enabled": true,
                     *       "can_disable": true
                     *     }
                     */
                    "application/json": {
                        notification_category_id: string;
                        notification_category_name: string;
                        enabled: boolean;
                        can_disable: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `NOTIFICATION_CATEGORY_CANNOT_BE_DISABLED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `UNSUBSCRIBE_LINK_INVALID` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `NOTIFICATION_CATEGORY_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `NOTIFICATION_CATEGORY_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emails-renderEmail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "template_tsx_source": "example",
                 *       "template_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "draft_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "theme_tsx_source": "example",
                 *       "theme_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "variables": {}
                 *     }
                 */
                "application/json": {
                    template_tsx_source?: string;
                    template_id?: string;
                    draft_id?: string;
                    theme_tsx_source?: string | null;
                    theme_id?: (string | false) | null;
                    variables?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "html": "example",
                     *       "text": "example",
                     *       "subject": "example",
                     *       "notification_category": "example"
                     *     }
                     */
                    "application/json": {
                        html: string;
                        text: string;
                        subject: string | null;
                        notification_category: string | null;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emails-sendEmail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "user_ids": [
                 *         "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                 *       ],
                 *       "all_users": true,
                 *       "html": "example",
                 *       "template_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "variables": {},
                 *       "draft_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "subject": "example",
                 *       "theme_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "notification_category_name": "example",
                 *       "scheduled_at_millis": 1767225600000
                 *     }
                 */
                "application/json": {
                    user_ids?: string[];
                    /** @constant */
                    all_users?: true;
                    html?: string;
                    template_id?: string;
                    variables?: {
                        [key: string]: unknown;
                    };
                    draft_id?: string;
                    subject?: string;
                    theme_id?: (string | false) | null;
                    notification_category_name?: string;
                    scheduled_at_millis?: number;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "results": [
                     *         {
                     *           "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "email_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *         }
                     *       ],
                     *       "scheduled_at_millis": 1767225600000
                     *     }
                     */
                    "application/json": {
                        results: {
                            user_id: string;
                            email_id: string;
                        }[];
                        scheduled_at_millis: number | null;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "aiChat-get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "messages": [
                     *         "example"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        messages: components["schemas"]["__schema7"][];
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `AI_CHAT_NOT_CONFIGURED` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `AI_CHAT_THREAD_FULL` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `AI_PROVIDER_RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `AI_PROVIDER_ERROR` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "aiChat-ask": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "context_type": "email-theme",
                 *       "messages": [
                 *         {
                 *           "role": "user",
                 *           "content": "example"
                 *         }
                 *       ],
                 *       "current_source": "example",
                 *       "theme_tsx_source": "example"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    context_type: "email-theme" | "email-template" | "email-draft";
                    messages: {
                        /** @enum {string} */
                        role: "user" | "assistant";
                        content: string;
                    }[];
                    current_source?: string;
                    theme_tsx_source?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "content": [
                     *         {
                     *           "type": "text",
                     *           "text": "example"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        content: ({
                            /** @constant */
                            type: "text";
                            text: string;
                        } | {
                            /** @constant */
                            type: "tool-call";
                            tool_name: string;
                            tool_call_id: string;
                            args: {
                                tsx_source: string;
                            };
                            rendered: {
                                html: string;
                                text: string;
                                subject: string | null;
                            } | null;
                            render_error: string | null;
                        })[];
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `AI_CHAT_NOT_CONFIGURED` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `AI_CHAT_THREAD_FULL` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `AI_PROVIDER_RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `AI_PROVIDER_ERROR` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "aiChat-save": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                thread_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "message": "example"
                 *     }
                 */
                "application/json": {
                    message: components["schemas"]["__schema0"];
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `AI_CHAT_NOT_CONFIGURED` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `AI_CHAT_THREAD_FULL` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `AI_PROVIDER_RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `AI_PROVIDER_ERROR` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "apiKeys-list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "description": "Example",
                     *           "expires_at_millis": 1767225600000,
                     *           "manually_revoked_at_millis": 1767225600000,
                     *           "created_at_millis": 1767225600000,
                     *           "publishable_client_key": {
                     *             "last_four": "example"
                     *           },
                     *           "secret_server_key": {
                     *             "last_four": "example"
                     *           },
                     *           "super_secret_admin_key": {
                     *             "last_four": "example"
                     *           },
                     *           "has_publishable_client_key": true,
                     *           "has_secret_server_key": true,
                     *           "has_super_secret_admin_key": true
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            description: string;
                            expires_at_millis: number | null;
                            manually_revoked_at_millis: number | null;
                            created_at_millis: number;
                            publishable_client_key: {
                                last_four: string;
                            } | null;
                            secret_server_key: {
                                last_four: string;
                            } | null;
                            super_secret_admin_key: {
                                last_four: string;
                            } | null;
                            has_publishable_client_key: boolean;
                            has_secret_server_key: boolean;
                            has_super_secret_admin_key: boolean;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `API_KEY_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "apiKeys-create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "description": "Example",
                 *       "expires_at_millis": 1767225600000,
                 *       "has_publishable_client_key": true,
                 *       "has_secret_server_key": true,
                 *       "has_super_secret_admin_key": true
                 *     }
                 */
                "application/json": {
                    description: string;
                    expires_at_millis?: number | null;
                    has_publishable_client_key: boolean;
                    has_secret_server_key: boolean;
                    has_super_secret_admin_key: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "description": "Example",
                     *       "expires_at_millis": 1767225600000,
                     *       "manually_revoked_at_millis": 1767225600000,
                     *       "created_at_millis": 1767225600000,
                     *       "publishable_client_key": "example",
                     *       "secret_server_key": "example",
                     *       "super_secret_admin_key": "example",
                     *       "has_publishable_client_key": true,
                     *       "has_secret_server_key": true,
                     *       "has_super_secret_admin_key": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        description: string;
                        expires_at_millis: number | null;
                        manually_revoked_at_millis: number | null;
                        created_at_millis: number;
                        publishable_client_key: string | null;
                        secret_server_key: string | null;
                        super_secret_admin_key: string | null;
                        has_publishable_client_key: boolean;
                        has_secret_server_key: boolean;
                        has_super_secret_admin_key: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `API_KEY_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "apiKeys-get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                api_key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "description": "Example",
                     *       "expires_at_millis": 1767225600000,
                     *       "manually_revoked_at_millis": 1767225600000,
                     *       "created_at_millis": 1767225600000,
                     *       "publishable_client_key": {
                     *         "last_four": "example"
                     *       },
                     *       "secret_server_key": {
                     *         "last_four": "example"
                     *       },
                     *       "super_secret_admin_key": {
                     *         "last_four": "example"
                     *       },
                     *       "has_publishable_client_key": true,
                     *       "has_secret_server_key": true,
                     *       "has_super_secret_admin_key": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        description: string;
                        expires_at_millis: number | null;
                        manually_revoked_at_millis: number | null;
                        created_at_millis: number;
                        publishable_client_key: {
                            last_four: string;
                        } | null;
                        secret_server_key: {
                            last_four: string;
                        } | null;
                        super_secret_admin_key: {
                            last_four: string;
                        } | null;
                        has_publishable_client_key: boolean;
                        has_secret_server_key: boolean;
                        has_super_secret_admin_key: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `API_KEY_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "apiKeys-delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                api_key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `API_KEY_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "apiKeys-update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                api_key_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "description": "Example",
                 *       "revoked": true
                 *     }
                 */
                "application/json": {
                    description?: string;
                    /** @constant */
                    revoked?: true;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "description": "Example",
                     *       "expires_at_millis": 1767225600000,
                     *       "manually_revoked_at_millis": 1767225600000,
                     *       "created_at_millis": 1767225600000,
                     *       "publishable_client_key": {
                     *         "last_four": "example"
                     *       },
                     *       "secret_server_key": {
                     *         "last_four": "example"
                     *       },
                     *       "super_secret_admin_key": {
                     *         "last_four": "example"
                     *       },
                     *       "has_publishable_client_key": true,
                     *       "has_secret_server_key": true,
                     *       "has_super_secret_admin_key": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        description: string;
                        expires_at_millis: number | null;
                        manually_revoked_at_millis: number | null;
                        created_at_millis: number;
                        publishable_client_key: {
                            last_four: string;
                        } | null;
                        secret_server_key: {
                            last_four: string;
                        } | null;
                        super_secret_admin_key: {
                            last_four: string;
                        } | null;
                        has_publishable_client_key: boolean;
                        has_secret_server_key: boolean;
                        has_super_secret_admin_key: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `API_KEY_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "projects-getConfig": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "config_string": "example"
                     *     }
                     */
                    "application/json": {
                        config_string: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PRODUCTION_MODE_HAS_PROBLEMS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `EXPECTED_INTERNAL_PROJECT`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `PROJECT_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "projects-overrideConfig": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "config_override_string": "example"
                 *     }
                 */
                "application/json": {
                    config_override_string: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "config_string": "example"
                     *     }
                     */
                    "application/json": {
                        config_string: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PRODUCTION_MODE_HAS_PROBLEMS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `EXPECTED_INTERNAL_PROJECT`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `PROJECT_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailContent-listDrafts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "display_name": "Ada Lovelace",
                     *           "tsx_source": "example",
                     *           "theme_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "sent_at_millis": 1767225600000,
                     *           "scheduled_at_millis": 1767225600000,
                     *           "created_at_millis": 1767225600000
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            display_name: string;
                            tsx_source: string;
                            theme_id: (string | false) | null;
                            sent_at_millis: number | null;
                            scheduled_at_millis: number | null;
                            created_at_millis: number;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailContent-createDraft": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "display_name": "Ada Lovelace",
                 *       "tsx_source": "example",
                 *       "theme_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                 *     }
                 */
                "application/json": {
                    display_name: string;
                    tsx_source?: string;
                    theme_id?: (string | false) | null;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "display_name": "Ada Lovelace",
                     *       "tsx_source": "example",
                     *       "theme_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "sent_at_millis": 1767225600000,
                     *       "scheduled_at_millis": 1767225600000,
                     *       "created_at_millis": 1767225600000
                     *     }
                     */
                    "application/json": {
                        id: string;
                        display_name: string;
                        tsx_source: string;
                        theme_id: (string | false) | null;
                        sent_at_millis: number | null;
                        scheduled_at_millis: number | null;
                        created_at_millis: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailContent-getDraft": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                draft_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "display_name": "Ada Lovelace",
                     *       "tsx_source": "example",
                     *       "theme_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "sent_at_millis": 1767225600000,
                     *       "scheduled_at_millis": 1767225600000,
                     *       "created_at_millis": 1767225600000
                     *     }
                     */
                    "application/json": {
                        id: string;
                        display_name: string;
                        tsx_source: string;
                        theme_id: (string | false) | null;
                        sent_at_millis: number | null;
                        scheduled_at_millis: number | null;
                        created_at_millis: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailContent-deleteDraft": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                draft_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailContent-updateDraft": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                draft_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "display_name": "Ada Lovelace",
                 *       "tsx_source": "example",
                 *       "theme_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                 *     }
                 */
                "application/json": {
                    display_name?: string;
                    tsx_source?: string;
                    theme_id?: (string | false) | null;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "display_name": "Ada Lovelace",
                     *       "tsx_source": "example",
                     *       "theme_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "sent_at_millis": 1767225600000,
                     *       "scheduled_at_millis": 1767225600000,
                     *       "created_at_millis": 1767225600000
                     *     }
                     */
                    "application/json": {
                        id: string;
                        display_name: string;
                        tsx_source: string;
                        theme_id: (string | false) | null;
                        sent_at_millis: number | null;
                        scheduled_at_millis: number | null;
                        created_at_millis: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailContent-listTemplates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "type": "example",
                     *           "display_name": "Ada Lovelace",
                     *           "tsx_source": "example",
                     *           "theme_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "is_default": true
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            type: string | null;
                            display_name: string;
                            tsx_source: string;
                            theme_id: (string | false) | null;
                            is_default: boolean;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailContent-createTemplate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "display_name": "Ada Lovelace",
                 *       "type": "example",
                 *       "tsx_source": "example",
                 *       "theme_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                 *     }
                 */
                "application/json": {
                    display_name: string;
                    type?: string;
                    tsx_source?: string;
                    theme_id?: (string | false) | null;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "type": "example",
                     *       "display_name": "Ada Lovelace",
                     *       "tsx_source": "example",
                     *       "theme_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "is_default": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        type: string | null;
                        display_name: string;
                        tsx_source: string;
                        theme_id: (string | false) | null;
                        is_default: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailContent-getTemplate": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                template_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "type": "example",
                     *       "display_name": "Ada Lovelace",
                     *       "tsx_source": "example",
                     *       "theme_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "is_default": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        type: string | null;
                        display_name: string;
                        tsx_source: string;
                        theme_id: (string | false) | null;
                        is_default: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailContent-deleteTemplate": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                template_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailContent-updateTemplate": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                template_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "display_name": "Ada Lovelace",
                 *       "tsx_source": "example",
                 *       "theme_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                 *     }
                 */
                "application/json": {
                    display_name?: string;
                    tsx_source?: string;
                    theme_id?: (string | false) | null;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "type": "example",
                     *       "display_name": "Ada Lovelace",
                     *       "tsx_source": "example",
                     *       "theme_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "is_default": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        type: string | null;
                        display_name: string;
                        tsx_source: string;
                        theme_id: (string | false) | null;
                        is_default: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailContent-listThemes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "display_name": "Ada Lovelace",
                     *           "tsx_source": "example",
                     *           "is_built_in": true,
                     *           "is_project_default": true
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            display_name: string;
                            tsx_source: string;
                            is_built_in: boolean;
                            is_project_default: boolean;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailContent-createTheme": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "display_name": "Ada Lovelace"
                 *     }
                 */
                "application/json": {
                    display_name: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "display_name": "Ada Lovelace",
                     *       "tsx_source": "example",
                     *       "is_built_in": true,
                     *       "is_project_default": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        display_name: string;
                        tsx_source: string;
                        is_built_in: boolean;
                        is_project_default: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailContent-getTheme": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                theme_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "display_name": "Ada Lovelace",
                     *       "tsx_source": "example",
                     *       "is_built_in": true,
                     *       "is_project_default": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        display_name: string;
                        tsx_source: string;
                        is_built_in: boolean;
                        is_project_default: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emailContent-updateTheme": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                theme_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "display_name": "Ada Lovelace",
                 *       "tsx_source": "example"
                 *     }
                 */
                "application/json": {
                    display_name?: string;
                    tsx_source?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "display_name": "Ada Lovelace",
                     *       "tsx_source": "example",
                     *       "is_built_in": true,
                     *       "is_project_default": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        display_name: string;
                        tsx_source: string;
                        is_built_in: boolean;
                        is_project_default: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emails-list": {
        parameters: {
            query?: {
                /** @example example */
                cursor?: string;
                /** @example 1 */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "to": "example",
                     *           "subject": "example",
                     *           "sent_at_millis": 1767225600000,
                     *           "error": "example",
                     *           "state": "pending",
                     *           "attempts": 1,
                     *           "created_at_millis": 1767225600000
                     *         }
                     *       ],
                     *       "is_paginated": true,
                     *       "pagination": {
                     *         "next_cursor": "example"
                     *       }
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            to: string;
                            subject: string;
                            sent_at_millis: number | null;
                            error: string | null;
                            /** @enum {string} */
                            state: "pending" | "sent" | "failed" | "not-delivered";
                            attempts: number;
                            created_at_millis: number;
                        }[];
                        /** @constant */
                        is_paginated: true;
                        pagination: {
                            next_cursor: string | null;
                        };
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emails-get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                email_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "to": "example",
                     *       "subject": "example",
                     *       "sent_at_millis": 1767225600000,
                     *       "error": "example",
                     *       "state": "pending",
                     *       "attempts": 1,
                     *       "created_at_millis": 1767225600000,
                     *       "html": "example",
                     *       "text": "example"
                     *     }
                     */
                    "application/json": {
                        id: string;
                        to: string;
                        subject: string;
                        sent_at_millis: number | null;
                        error: string | null;
                        /** @enum {string} */
                        state: "pending" | "sent" | "failed" | "not-delivered";
                        attempts: number;
                        created_at_millis: number;
                        html: string;
                        text: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emails-listScheduled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "scheduled_at_millis": 1767225600000,
                     *           "subject": "example",
                     *           "draft_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "template_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "recipient_count": 1,
                     *           "created_at_millis": 1767225600000
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            scheduled_at_millis: number;
                            subject: string | null;
                            draft_id: string | null;
                            template_id: string | null;
                            recipient_count: number;
                            created_at_millis: number;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emails-sendPreview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "template_tsx_source": "example",
                 *       "template_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "draft_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "theme_tsx_source": "example",
                 *       "theme_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "variables": {}
                 *     }
                 */
                "application/json": {
                    template_tsx_source?: string;
                    template_id?: string;
                    draft_id?: string;
                    theme_tsx_source?: string | null;
                    theme_id?: (string | false) | null;
                    variables?: {
                        [key: string]: unknown;
                    };
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "to": "example",
                     *       "subject": "example",
                     *       "email_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *     }
                     */
                    "application/json": {
                        to: string;
                        subject: string;
                        email_id: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emails-listSent": {
        parameters: {
            query?: {
                /** @example example */
                cursor?: string;
                /** @example 1 */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "to": "example",
                     *           "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "subject": "example",
                     *           "sent_at_millis": 1767225600000,
                     *           "error": "example",
                     *           "draft_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "template_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "created_at_millis": 1767225600000
                     *         }
                     *       ],
                     *       "is_paginated": true,
                     *       "pagination": {
                     *         "next_cursor": "example"
                     *       }
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            to: string | null;
                            user_id: string | null;
                            subject: string;
                            sent_at_millis: number | null;
                            error: string | null;
                            draft_id: string | null;
                            template_id: string | null;
                            created_at_millis: number;
                        }[];
                        /** @constant */
                        is_paginated: true;
                        pagination: {
                            next_cursor: string | null;
                        };
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "metrics-get": {
        parameters: {
            query?: {
                /** @example example */
                include_anonymous?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "total_users": 1,
                     *       "anonymous_users": 1,
                     *       "active_users": {
                     *         "last_day": 1,
                     *         "last_7_days": 1,
                     *         "last_30_days": 1
                     *       },
                     *       "sign_ups_per_day": [
                     *         {
                     *           "date": "example",
                     *           "count": 1
                     *         }
                     *       ],
                     *       "daily_active_users": [
                     *         {
                     *           "date": "example",
                     *           "count": 1
                     *         }
                     *       ],
                     *       "last_active_per_day": [
                     *         {
                     *           "date": "example",
                     *           "count": 1
                     *         }
                     *       ],
                     *       "users_by_auth_method": {
                     *         "password": 1,
                     *         "email_code": 1,
                     *         "passkey": 1,
                     *         "none": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        total_users: number;
                        anonymous_users: number;
                        active_users: {
                            last_day: number;
                            last_7_days: number;
                            last_30_days: number;
                        };
                        sign_ups_per_day: {
                            date: string;
                            count: number;
                        }[];
                        daily_active_users: {
                            date: string;
                            count: number;
                        }[];
                        last_active_per_day: {
                            date: string;
                            count: number;
                        }[];
                        users_by_auth_method: {
                            password: number;
                            email_code: number;
                            passkey: number;
                            none: number;
                        };
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "notifications-listCategories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "name": "Example",
                     *           "can_disable": true,
                     *           "default_enabled": true,
                     *           "built_in": true
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            name: string;
                            can_disable: boolean;
                            default_enabled: boolean;
                            built_in: boolean;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `NOTIFICATION_CATEGORY_CANNOT_BE_DISABLED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `UNSUBSCRIBE_LINK_INVALID` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `NOTIFICATION_CATEGORY_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `NOTIFICATION_CATEGORY_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "notifications-createCategory": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Example",
                 *       "can_disable": true,
                 *       "default_enabled": true
                 *     }
                 */
                "application/json": {
                    name: string;
                    can_disable?: boolean;
                    default_enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "name": "Example",
                     *       "can_disable": true,
                     *       "default_enabled": true,
                     *       "built_in": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        name: string;
                        can_disable: boolean;
                        default_enabled: boolean;
                        built_in: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `NOTIFICATION_CATEGORY_CANNOT_BE_DISABLED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `UNSUBSCRIBE_LINK_INVALID` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `NOTIFICATION_CATEGORY_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `NOTIFICATION_CATEGORY_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "notifications-deleteCategory": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                notification_category_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `NOTIFICATION_CATEGORY_CANNOT_BE_DISABLED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `UNSUBSCRIBE_LINK_INVALID` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `NOTIFICATION_CATEGORY_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `NOTIFICATION_CATEGORY_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "payments-revenue": {
        parameters: {
            query?: {
                /** @example 2026-01-01 */
                from?: string;
                /** @example 2026-01-01 */
                to?: string;
                /** @example 1 */
                days?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "from": "example",
                     *       "to": "example",
                     *       "live": [
                     *         {
                     *           "date": "example",
                     *           "currency": "example",
                     *           "gross_minor": 1,
                     *           "refunds_minor": 1,
                     *           "net_minor": 1
                     *         }
                     *       ],
                     *       "test": [
                     *         {
                     *           "date": "example",
                     *           "currency": "example",
                     *           "gross_minor": 1,
                     *           "refunds_minor": 1,
                     *           "net_minor": 1
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        from: string;
                        to: string;
                        live: {
                            date: string;
                            currency: string;
                            gross_minor: number;
                            refunds_minor: number;
                            net_minor: number;
                        }[];
                        test: {
                            date: string;
                            currency: string;
                            gross_minor: number;
                            refunds_minor: number;
                            net_minor: number;
                        }[];
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `CUSTOMER_DOES_NOT_EXIST`, `INVALID_ACCESS_TYPE`, `ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH`, `ITEM_QUANTITY_INSUFFICIENT_AMOUNT`, `PRODUCT_ALREADY_GRANTED`, `PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH`, `PRODUCT_DOES_NOT_EXIST`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ITEM_NOT_FOUND`, `STRIPE_ACCOUNT_INFO_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PAYMENT_PROVIDER_REQUEST_FAILED` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "payments-setup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "stripe_secret_key": "examplex",
                 *       "stripe_webhook_secret": "examplex"
                 *     }
                 */
                "application/json": {
                    stripe_secret_key: string;
                    stripe_webhook_secret: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "webhook_url": "https://app.example.com/handler"
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                        webhook_url: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `CUSTOMER_DOES_NOT_EXIST`, `INVALID_ACCESS_TYPE`, `ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH`, `ITEM_QUANTITY_INSUFFICIENT_AMOUNT`, `PRODUCT_ALREADY_GRANTED`, `PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH`, `PRODUCT_DOES_NOT_EXIST`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ITEM_NOT_FOUND`, `STRIPE_ACCOUNT_INFO_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PAYMENT_PROVIDER_REQUEST_FAILED` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "payments-stripeAccountSession": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "client_secret": "example",
                     *       "expires_at_millis": 1767225600000
                     *     }
                     */
                    "application/json": {
                        client_secret: string;
                        expires_at_millis: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `CUSTOMER_DOES_NOT_EXIST`, `INVALID_ACCESS_TYPE`, `ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH`, `ITEM_QUANTITY_INSUFFICIENT_AMOUNT`, `PRODUCT_ALREADY_GRANTED`, `PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH`, `PRODUCT_DOES_NOT_EXIST`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ITEM_NOT_FOUND`, `STRIPE_ACCOUNT_INFO_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PAYMENT_PROVIDER_REQUEST_FAILED` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "payments-stripeAccountInfo": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "account_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "charges_enabled": true,
                     *       "details_submitted": true,
                     *       "payouts_enabled": true,
                     *       "webhook_url": "https://app.example.com/handler"
                     *     }
                     */
                    "application/json": {
                        account_id: string;
                        charges_enabled: boolean;
                        details_submitted: boolean;
                        payouts_enabled: boolean;
                        webhook_url: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `CUSTOMER_DOES_NOT_EXIST`, `INVALID_ACCESS_TYPE`, `ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH`, `ITEM_QUANTITY_INSUFFICIENT_AMOUNT`, `PRODUCT_ALREADY_GRANTED`, `PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH`, `PRODUCT_DOES_NOT_EXIST`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ITEM_NOT_FOUND`, `STRIPE_ACCOUNT_INFO_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PAYMENT_PROVIDER_REQUEST_FAILED` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "payments-transactions": {
        parameters: {
            query?: {
                /** @example example */
                cursor?: string;
                /** @example 1 */
                limit?: number;
                /** @example purchase */
                type?: "purchase" | "renewal" | "refund" | "dispute" | "payment_failed" | "grant" | "manual_change";
                /** @example user */
                customer_type?: "user" | "team" | "custom";
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                customer_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "transactions": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "type": "purchase",
                     *           "test_mode": true,
                     *           "customer_type": "user",
                     *           "customer_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "purchase_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "product_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "product_display_name": "Ada Lovelace",
                     *           "quantity": 1,
                     *           "currency": "example",
                     *           "amount_minor": 1,
                     *           "items": {},
                     *           "description": "Example",
                     *           "created_at_millis": 1767225600000
                     *         }
                     *       ],
                     *       "next_cursor": "example"
                     *     }
                     */
                    "application/json": {
                        transactions: {
                            id: string;
                            /** @enum {string} */
                            type: "purchase" | "renewal" | "refund" | "dispute" | "payment_failed" | "grant" | "manual_change";
                            test_mode: boolean;
                            /** @enum {string} */
                            customer_type: "user" | "team" | "custom";
                            customer_id: string;
                            purchase_id: string | null;
                            product_id: string | null;
                            product_display_name: string | null;
                            quantity: number | null;
                            currency: string | null;
                            amount_minor: number | null;
                            items: {
                                [key: string]: number;
                            };
                            description: string | null;
                            created_at_millis: number;
                        }[];
                        next_cursor: string | null;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `CUSTOMER_DOES_NOT_EXIST`, `INVALID_ACCESS_TYPE`, `ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH`, `ITEM_QUANTITY_INSUFFICIENT_AMOUNT`, `PRODUCT_ALREADY_GRANTED`, `PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH`, `PRODUCT_DOES_NOT_EXIST`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ITEM_NOT_FOUND`, `STRIPE_ACCOUNT_INFO_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PAYMENT_PROVIDER_REQUEST_FAILED` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "projects-listOwned": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "branch": "example",
                     *           "display_name": "Ada Lovelace",
                     *           "description": "Example",
                     *           "created_at_millis": 1767225600000,
                     *           "is_production_mode": true,
                     *           "logo_url": "https://app.example.com/handler",
                     *           "full_logo_url": "https://app.example.com/handler",
                     *           "owner_team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "config": {
                     *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *             "sign_up_enabled": true,
                     *             "credential_enabled": true,
                     *             "magic_link_enabled": true,
                     *             "passkey_enabled": true,
                     *             "anonymous_enabled": true,
                     *             "allow_localhost": true,
                     *             "create_team_on_sign_up": true,
                     *             "client_team_creation_enabled": true,
                     *             "client_user_deletion_enabled": true,
                     *             "allow_user_api_keys": true,
                     *             "allow_team_api_keys": true,
                     *             "oauth_account_merge_strategy": "link_method",
                     *             "team_creator_default_permissions": [
                     *               {
                     *                 "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *               }
                     *             ],
                     *             "team_member_default_permissions": [
                     *               {
                     *                 "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *               }
                     *             ],
                     *             "user_default_permissions": [
                     *               {
                     *                 "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *               }
                     *             ],
                     *             "email_theme": "example",
                     *             "domains": [
                     *               {
                     *                 "domain": "example",
                     *                 "handler_path": "example"
                     *               }
                     *             ],
                     *             "oauth_providers": [
                     *               {
                     *                 "id": "google",
                     *                 "enabled": true,
                     *                 "type": "shared",
                     *                 "client_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *                 "has_client_secret": true,
                     *                 "facebook_config_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *                 "microsoft_tenant_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *               }
                     *             ],
                     *             "enabled_oauth_providers": [
                     *               {
                     *                 "id": "google"
                     *               }
                     *             ],
                     *             "email_config": {
                     *               "type": "shared"
                     *             },
                     *             "data_vault_stores": [
                     *               {
                     *                 "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *                 "display_name": "Ada Lovelace"
                     *               }
                     *             ],
                     *             "payments": {
                     *               "test_mode": true,
                     *               "items": {},
                     *               "productLines": {},
                     *               "products": {}
                     *             }
                     *           },
                     *           "production_mode_problems": [
                     *             {
                     *               "message": "example",
                     *               "relative_fix_url": "https://app.example.com/handler"
                     *             }
                     *           ]
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            branch: string;
                            display_name: string;
                            description: string | null;
                            created_at_millis: number;
                            is_production_mode: boolean;
                            logo_url: string | null;
                            full_logo_url: string | null;
                            owner_team_id: string | null;
                            config: {
                                id: string;
                                sign_up_enabled: boolean;
                                credential_enabled: boolean;
                                magic_link_enabled: boolean;
                                passkey_enabled: boolean;
                                anonymous_enabled: boolean;
                                allow_localhost: boolean;
                                create_team_on_sign_up: boolean;
                                client_team_creation_enabled: boolean;
                                client_user_deletion_enabled: boolean;
                                allow_user_api_keys: boolean;
                                allow_team_api_keys: boolean;
                                /** @enum {string} */
                                oauth_account_merge_strategy: "link_method" | "raise_error" | "allow_duplicates";
                                team_creator_default_permissions: {
                                    id: string;
                                }[];
                                team_member_default_permissions: {
                                    id: string;
                                }[];
                                user_default_permissions: {
                                    id: string;
                                }[];
                                email_theme: string | null;
                                domains: {
                                    domain: string;
                                    handler_path: string;
                                }[];
                                oauth_providers: {
                                    /** @enum {string} */
                                    id: "google" | "github" | "microsoft" | "spotify" | "facebook" | "discord" | "gitlab" | "bitbucket" | "linkedin" | "apple" | "x" | "twitch" | "oidc";
                                    enabled: boolean;
                                    /** @enum {string} */
                                    type: "shared" | "standard";
                                    client_id: string | null;
                                    has_client_secret: boolean;
                                    facebook_config_id: string | null;
                                    microsoft_tenant_id: string | null;
                                    issuer_url?: string | null;
                                }[];
                                enabled_oauth_providers: {
                                    /** @enum {string} */
                                    id: "google" | "github" | "microsoft" | "spotify" | "facebook" | "discord" | "gitlab" | "bitbucket" | "linkedin" | "apple" | "x" | "twitch" | "oidc";
                                }[];
                                email_config: {
                                    /** @constant */
                                    type: "shared";
                                } | {
                                    /** @constant */
                                    type: "standard";
                                    host: string;
                                    port: number;
                                    username: string;
                                    has_password: boolean;
                                    sender_name: string;
                                    sender_email: string;
                                };
                                data_vault_stores: {
                                    id: string;
                                    display_name: string;
                                }[];
                                payments: {
                                    test_mode: boolean;
                                    items: {
                                        [key: string]: {
                                            displayName?: string;
                                            /** @enum {string} */
                                            customerType: "user" | "team" | "custom";
                                        };
                                    };
                                    productLines: {
                                        [key: string]: {
                                            displayName?: string;
                                            /** @enum {string} */
                                            customerType?: "user" | "team" | "custom";
                                        };
                                    };
                                    products: {
                                        [key: string]: {
                                            [key: string]: unknown;
                                        };
                                    };
                                };
                            };
                            production_mode_problems: {
                                message: string;
                                relative_fix_url: string;
                            }[];
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PRODUCTION_MODE_HAS_PROBLEMS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `CLIENT_AUTHENTICATION_REQUIRED`, `EXPECTED_INTERNAL_PROJECT`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `PROJECT_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "projects-createOwned": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "display_name": "Ada Lovelace",
                 *       "description": "Example",
                 *       "owner_team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "is_production_mode": true,
                 *       "logo_url": "https://app.example.com/handler",
                 *       "full_logo_url": "https://app.example.com/handler",
                 *       "config": {
                 *         "sign_up_enabled": true,
                 *         "credential_enabled": true,
                 *         "magic_link_enabled": true,
                 *         "passkey_enabled": true,
                 *         "anonymous_enabled": true,
                 *         "allow_localhost": true,
                 *         "create_team_on_sign_up": true,
                 *         "client_team_creation_enabled": true,
                 *         "client_user_deletion_enabled": true,
                 *         "allow_user_api_keys": true,
                 *         "allow_team_api_keys": true,
                 *         "oauth_account_merge_strategy": "link_method",
                 *         "team_creator_default_permissions": [
                 *           {
                 *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                 *           }
                 *         ],
                 *         "team_member_default_permissions": [
                 *           {
                 *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                 *           }
                 *         ],
                 *         "user_default_permissions": [
                 *           {
                 *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                 *           }
                 *         ],
                 *         "email_theme": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *         "domains": [
                 *           {
                 *             "domain": "example",
                 *             "handler_path": "example"
                 *           }
                 *         ],
                 *         "oauth_providers": [
                 *           {
                 *             "id": "google",
                 *             "enabled": true,
                 *             "type": "shared"
                 *           }
                 *         ],
                 *         "email_config": {
                 *           "type": "shared"
                 *         },
                 *         "data_vault_stores": [
                 *           {
                 *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *             "display_name": "Ada Lovelace"
                 *           }
                 *         ],
                 *         "payments": {}
                 *       },
                 *       "default_team_roles": true
                 *     }
                 */
                "application/json": {
                    display_name: string;
                    description?: string | null;
                    owner_team_id?: string;
                    is_production_mode?: boolean;
                    logo_url?: string | null;
                    full_logo_url?: string | null;
                    config?: {
                        sign_up_enabled?: boolean;
                        credential_enabled?: boolean;
                        magic_link_enabled?: boolean;
                        passkey_enabled?: boolean;
                        anonymous_enabled?: boolean;
                        allow_localhost?: boolean;
                        create_team_on_sign_up?: boolean;
                        client_team_creation_enabled?: boolean;
                        client_user_deletion_enabled?: boolean;
                        allow_user_api_keys?: boolean;
                        allow_team_api_keys?: boolean;
                        /** @enum {string} */
                        oauth_account_merge_strategy?: "link_method" | "raise_error" | "allow_duplicates";
                        team_creator_default_permissions?: {
                            id: string;
                        }[];
                        team_member_default_permissions?: {
                            id: string;
                        }[];
                        user_default_permissions?: {
                            id: string;
                        }[];
                        email_theme?: string | null;
                        domains?: {
                            domain: string;
                            handler_path: string;
                        }[];
                        oauth_providers?: {
                            /** @enum {string} */
                            id: "google" | "github" | "microsoft" | "spotify" | "facebook" | "discord" | "gitlab" | "bitbucket" | "linkedin" | "apple" | "x" | "twitch" | "oidc";
                            enabled: boolean;
                            /** @enum {string} */
                            type: "shared" | "standard";
                            client_id?: string | null;
                            client_secret?: string | null;
                            facebook_config_id?: string | null;
                            microsoft_tenant_id?: string | null;
                            issuer_url?: string | null;
                        }[];
                        email_config?: {
                            /** @constant */
                            type: "shared";
                        } | {
                            /** @constant */
                            type: "standard";
                            host: string;
                            port: number;
                            username: string;
                            password?: string;
                            sender_name: string;
                            sender_email: string;
                        };
                        data_vault_stores?: {
                            id: string;
                            display_name: string;
                        }[];
                        payments?: {
                            /** @default false */
                            test_mode?: boolean;
                            /** @default {} */
                            items?: {
                                [key: string]: {
                                    displayName?: string;
                                    /** @enum {string} */
                                    customerType: "user" | "team" | "custom";
                                };
                            };
                            /** @default {} */
                            productLines?: {
                                [key: string]: {
                                    displayName?: string;
                                    /** @enum {string} */
                                    customerType?: "user" | "team" | "custom";
                                };
                            };
                            products?: {
                                [key: string]: {
                                    displayName?: string;
                                    productLineId?: string;
                                    catalogId?: string;
                                    /** @default false */
                                    isAddOnTo?: false | {
                                        [key: string]: unknown;
                                    };
                                    /** @enum {string} */
                                    customerType: "user" | "team" | "custom";
                                    freeTrial?: [
                                        number,
                                        "millisecond" | "second" | "minute" | "hour" | "day" | "week" | "month" | "year"
                                    ];
                                    /** @default false */
                                    serverOnly?: boolean;
                                    /** @default false */
                                    stackable?: boolean;
                                    prices: "include-by-default" | {
                                        [key: string]: {
                                            USD?: string;
                                            EUR?: string;
                                            GBP?: string;
                                            JPY?: string;
                                            INR?: string;
                                            AUD?: string;
                                            CAD?: string;
                                            interval?: [
                                                number,
                                                "millisecond" | "second" | "minute" | "hour" | "day" | "week" | "month" | "year"
                                            ];
                                            serverOnly?: boolean;
                                            freeTrial?: [
                                                number,
                                                "millisecond" | "second" | "minute" | "hour" | "day" | "week" | "month" | "year"
                                            ];
                                        };
                                    };
                                    /** @default {} */
                                    includedItems?: {
                                        [key: string]: {
                                            quantity: number;
                                            /** @default never */
                                            repeat?: "never" | [
                                                number,
                                                "millisecond" | "second" | "minute" | "hour" | "day" | "week" | "month" | "year"
                                            ];
                                            /**
                                             * @default never
                                             * @enum {string}
                                             */
                                            expires?: "never" | "when-purchase-expires" | "when-repeated";
                                        };
                                    };
                                };
                            };
                        };
                    };
                    default_team_roles?: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "branch": "example",
                     *       "display_name": "Ada Lovelace",
                     *       "description": "Example",
                     *       "created_at_millis": 1767225600000,
                     *       "is_production_mode": true,
                     *       "logo_url": "https://app.example.com/handler",
                     *       "full_logo_url": "https://app.example.com/handler",
                     *       "owner_team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "config": {
                     *         "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *         "sign_up_enabled": true,
                     *         "credential_enabled": true,
                     *         "magic_link_enabled": true,
                     *         "passkey_enabled": true,
                     *         "anonymous_enabled": true,
                     *         "allow_localhost": true,
                     *         "create_team_on_sign_up": true,
                     *         "client_team_creation_enabled": true,
                     *         "client_user_deletion_enabled": true,
                     *         "allow_user_api_keys": true,
                     *         "allow_team_api_keys": true,
                     *         "oauth_account_merge_strategy": "link_method",
                     *         "team_creator_default_permissions": [
                     *           {
                     *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *           }
                     *         ],
                     *         "team_member_default_permissions": [
                     *           {
                     *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *           }
                     *         ],
                     *         "user_default_permissions": [
                     *           {
                     *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *           }
                     *         ],
                     *         "email_theme": "example",
                     *         "domains": [
                     *           {
                     *             "domain": "example",
                     *             "handler_path": "example"
                     *           }
                     *         ],
                     *         "oauth_providers": [
                     *           {
                     *             "id": "google",
                     *             "enabled": true,
                     *             "type": "shared",
                     *             "client_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *             "has_client_secret": true,
                     *             "facebook_config_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *             "microsoft_tenant_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *           }
                     *         ],
                     *         "enabled_oauth_providers": [
                     *           {
                     *             "id": "google"
                     *           }
                     *         ],
                     *         "email_config": {
                     *           "type": "shared"
                     *         },
                     *         "data_vault_stores": [
                     *           {
                     *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *             "display_name": "Ada Lovelace"
                     *           }
                     *         ],
                     *         "payments": {
                     *           "test_mode": true,
                     *           "items": {},
                     *           "productLines": {},
                     *           "products": {}
                     *         }
                     *       },
                     *       "production_mode_problems": [
                     *         {
                     *           "message": "example",
                     *           "relative_fix_url": "https://app.example.com/handler"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        id: string;
                        branch: string;
                        display_name: string;
                        description: string | null;
                        created_at_millis: number;
                        is_production_mode: boolean;
                        logo_url: string | null;
                        full_logo_url: string | null;
                        owner_team_id: string | null;
                        config: {
                            id: string;
                            sign_up_enabled: boolean;
                            credential_enabled: boolean;
                            magic_link_enabled: boolean;
                            passkey_enabled: boolean;
                            anonymous_enabled: boolean;
                            allow_localhost: boolean;
                            create_team_on_sign_up: boolean;
                            client_team_creation_enabled: boolean;
                            client_user_deletion_enabled: boolean;
                            allow_user_api_keys: boolean;
                            allow_team_api_keys: boolean;
                            /** @enum {string} */
                            oauth_account_merge_strategy: "link_method" | "raise_error" | "allow_duplicates";
                            team_creator_default_permissions: {
                                id: string;
                            }[];
                            team_member_default_permissions: {
                                id: string;
                            }[];
                            user_default_permissions: {
                                id: string;
                            }[];
                            email_theme: string | null;
                            domains: {
                                domain: string;
                                handler_path: string;
                            }[];
                            oauth_providers: {
                                /** @enum {string} */
                                id: "google" | "github" | "microsoft" | "spotify" | "facebook" | "discord" | "gitlab" | "bitbucket" | "linkedin" | "apple" | "x" | "twitch" | "oidc";
                                enabled: boolean;
                                /** @enum {string} */
                                type: "shared" | "standard";
                                client_id: string | null;
                                has_client_secret: boolean;
                                facebook_config_id: string | null;
                                microsoft_tenant_id: string | null;
                                issuer_url?: string | null;
                            }[];
                            enabled_oauth_providers: {
                                /** @enum {string} */
                                id: "google" | "github" | "microsoft" | "spotify" | "facebook" | "discord" | "gitlab" | "bitbucket" | "linkedin" | "apple" | "x" | "twitch" | "oidc";
                            }[];
                            email_config: {
                                /** @constant */
                                type: "shared";
                            } | {
                                /** @constant */
                                type: "standard";
                                host: string;
                                port: number;
                                username: string;
                                has_password: boolean;
                                sender_name: string;
                                sender_email: string;
                            };
                            data_vault_stores: {
                                id: string;
                                display_name: string;
                            }[];
                            payments: {
                                test_mode: boolean;
                                items: {
                                    [key: string]: {
                                        displayName?: string;
                                        /** @enum {string} */
                                        customerType: "user" | "team" | "custom";
                                    };
                                };
                                productLines: {
                                    [key: string]: {
                                        displayName?: string;
                                        /** @enum {string} */
                                        customerType?: "user" | "team" | "custom";
                                    };
                                };
                                products: {
                                    [key: string]: {
                                        [key: string]: unknown;
                                    };
                                };
                            };
                        };
                        production_mode_problems: {
                            message: string;
                            relative_fix_url: string;
                        }[];
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PRODUCTION_MODE_HAS_PROBLEMS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `CLIENT_AUTHENTICATION_REQUIRED`, `EXPECTED_INTERNAL_PROJECT`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `PROJECT_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "projects-listOwners": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "display_name": "Ada Lovelace",
                     *           "primary_email": "ada@example.com",
                     *           "is_current_user": true,
                     *           "joined_at_millis": 1767225600000
                     *         }
                     *       ],
                     *       "is_paginated": false,
                     *       "owner_team": {
                     *         "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *         "display_name": "Ada Lovelace",
                     *         "owned_project_count": 1
                     *       }
                     *     }
                     */
                    "application/json": {
                        items: {
                            user_id: string;
                            display_name: string | null;
                            primary_email: string | null;
                            is_current_user: boolean;
                            joined_at_millis: number;
                        }[];
                        /** @constant */
                        is_paginated: false;
                        owner_team: {
                            id: string;
                            display_name: string;
                            owned_project_count: number;
                        };
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PRODUCTION_MODE_HAS_PROBLEMS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `CLIENT_AUTHENTICATION_REQUIRED`, `EXPECTED_INTERNAL_PROJECT`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `PROJECT_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "projects-removeOwner": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                project_id: string;
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                user_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PRODUCTION_MODE_HAS_PROBLEMS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `CLIENT_AUTHENTICATION_REQUIRED`, `EXPECTED_INTERNAL_PROJECT`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `PROJECT_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "projects-listOwnerInvitations": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "recipient_email": "ada@example.com",
                     *           "expires_at_millis": 1767225600000
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            recipient_email: string;
                            expires_at_millis: number;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PRODUCTION_MODE_HAS_PROBLEMS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `CLIENT_AUTHENTICATION_REQUIRED`, `EXPECTED_INTERNAL_PROJECT`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `PROJECT_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "projects-inviteOwner": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                project_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com"
                 *     }
                 */
                "application/json": {
                    email: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *     }
                     */
                    "application/json": {
                        id: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PRODUCTION_MODE_HAS_PROBLEMS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `CLIENT_AUTHENTICATION_REQUIRED`, `EXPECTED_INTERNAL_PROJECT`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `PROJECT_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "projects-revokeOwnerInvitation": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                project_id: string;
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                invitation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PRODUCTION_MODE_HAS_PROBLEMS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `CLIENT_AUTHENTICATION_REQUIRED`, `EXPECTED_INTERNAL_PROJECT`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `PROJECT_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "projects-adminCurrent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "branch": "example",
                     *       "display_name": "Ada Lovelace",
                     *       "description": "Example",
                     *       "created_at_millis": 1767225600000,
                     *       "is_production_mode": true,
                     *       "logo_url": "https://app.example.com/handler",
                     *       "full_logo_url": "https://app.example.com/handler",
                     *       "owner_team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "config": {
                     *         "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *         "sign_up_enabled": true,
                     *         "credential_enabled": true,
                     *         "magic_link_enabled": true,
                     *         "passkey_enabled": true,
                     *         "anonymous_enabled": true,
                     *         "allow_localhost": true,
                     *         "create_team_on_sign_up": true,
                     *         "client_team_creation_enabled": true,
                     *         "client_user_deletion_enabled": true,
                     *         "allow_user_api_keys": true,
                     *         "allow_team_api_keys": true,
                     *         "oauth_account_merge_strategy": "link_method",
                     *         "team_creator_default_permissions": [
                     *           {
                     *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *           }
                     *         ],
                     *         "team_member_default_permissions": [
                     *           {
                     *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *           }
                     *         ],
                     *         "user_default_permissions": [
                     *           {
                     *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *           }
                     *         ],
                     *         "email_theme": "example",
                     *         "domains": [
                     *           {
                     *             "domain": "example",
                     *             "handler_path": "example"
                     *           }
                     *         ],
                     *         "oauth_providers": [
                     *           {
                     *             "id": "google",
                     *             "enabled": true,
                     *             "type": "shared",
                     *             "client_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *             "has_client_secret": true,
                     *             "facebook_config_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *             "microsoft_tenant_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *           }
                     *         ],
                     *         "enabled_oauth_providers": [
                     *           {
                     *             "id": "google"
                     *           }
                     *         ],
                     *         "email_config": {
                     *           "type": "shared"
                     *         },
                     *         "data_vault_stores": [
                     *           {
                     *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *             "display_name": "Ada Lovelace"
                     *           }
                     *         ],
                     *         "payments": {
                     *           "test_mode": true,
                     *           "items": {},
                     *           "productLines": {},
                     *           "products": {}
                     *         }
                     *       },
                     *       "production_mode_problems": [
                     *         {
                     *           "message": "example",
                     *           "relative_fix_url": "https://app.example.com/handler"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        id: string;
                        branch: string;
                        display_name: string;
                        description: string | null;
                        created_at_millis: number;
                        is_production_mode: boolean;
                        logo_url: string | null;
                        full_logo_url: string | null;
                        owner_team_id: string | null;
                        config: {
                            id: string;
                            sign_up_enabled: boolean;
                            credential_enabled: boolean;
                            magic_link_enabled: boolean;
                            passkey_enabled: boolean;
                            anonymous_enabled: boolean;
                            allow_localhost: boolean;
                            create_team_on_sign_up: boolean;
                            client_team_creation_enabled: boolean;
                            client_user_deletion_enabled: boolean;
                            allow_user_api_keys: boolean;
                            allow_team_api_keys: boolean;
                            /** @enum {string} */
                            oauth_account_merge_strategy: "link_method" | "raise_error" | "allow_duplicates";
                            team_creator_default_permissions: {
                                id: string;
                            }[];
                            team_member_default_permissions: {
                                id: string;
                            }[];
                            user_default_permissions: {
                                id: string;
                            }[];
                            email_theme: string | null;
                            domains: {
                                domain: string;
                                handler_path: string;
                            }[];
                            oauth_providers: {
                                /** @enum {string} */
                                id: "google" | "github" | "microsoft" | "spotify" | "facebook" | "discord" | "gitlab" | "bitbucket" | "linkedin" | "apple" | "x" | "twitch" | "oidc";
                                enabled: boolean;
                                /** @enum {string} */
                                type: "shared" | "standard";
                                client_id: string | null;
                                has_client_secret: boolean;
                                facebook_config_id: string | null;
                                microsoft_tenant_id: string | null;
                                issuer_url?: string | null;
                            }[];
                            enabled_oauth_providers: {
                                /** @enum {string} */
                                id: "google" | "github" | "microsoft" | "spotify" | "facebook" | "discord" | "gitlab" | "bitbucket" | "linkedin" | "apple" | "x" | "twitch" | "oidc";
                            }[];
                            email_config: {
                                /** @constant */
                                type: "shared";
                            } | {
                                /** @constant */
                                type: "standard";
                                host: string;
                                port: number;
                                username: string;
                                has_password: boolean;
                                sender_name: string;
                                sender_email: string;
                            };
                            data_vault_stores: {
                                id: string;
                                display_name: string;
                            }[];
                            payments: {
                                test_mode: boolean;
                                items: {
                                    [key: string]: {
                                        displayName?: string;
                                        /** @enum {string} */
                                        customerType: "user" | "team" | "custom";
                                    };
                                };
                                productLines: {
                                    [key: string]: {
                                        displayName?: string;
                                        /** @enum {string} */
                                        customerType?: "user" | "team" | "custom";
                                    };
                                };
                                products: {
                                    [key: string]: {
                                        [key: string]: unknown;
                                    };
                                };
                            };
                        };
                        production_mode_problems: {
                            message: string;
                            relative_fix_url: string;
                        }[];
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PRODUCTION_MODE_HAS_PROBLEMS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `EXPECTED_INTERNAL_PROJECT`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `PROJECT_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "projects-deleteCurrent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PRODUCTION_MODE_HAS_PROBLEMS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `EXPECTED_INTERNAL_PROJECT`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `PROJECT_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "projects-updateCurrent": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "display_name": "Ada Lovelace",
                 *       "description": "Example",
                 *       "is_production_mode": true,
                 *       "logo_url": "https://app.example.com/handler",
                 *       "full_logo_url": "https://app.example.com/handler",
                 *       "config": {
                 *         "sign_up_enabled": true,
                 *         "credential_enabled": true,
                 *         "magic_link_enabled": true,
                 *         "passkey_enabled": true,
                 *         "anonymous_enabled": true,
                 *         "allow_localhost": true,
                 *         "create_team_on_sign_up": true,
                 *         "client_team_creation_enabled": true,
                 *         "client_user_deletion_enabled": true,
                 *         "allow_user_api_keys": true,
                 *         "allow_team_api_keys": true,
                 *         "oauth_account_merge_strategy": "link_method",
                 *         "team_creator_default_permissions": [
                 *           {
                 *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                 *           }
                 *         ],
                 *         "team_member_default_permissions": [
                 *           {
                 *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                 *           }
                 *         ],
                 *         "user_default_permissions": [
                 *           {
                 *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                 *           }
                 *         ],
                 *         "email_theme": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *         "domains": [
                 *           {
                 *             "domain": "example",
                 *             "handler_path": "example"
                 *           }
                 *         ],
                 *         "oauth_providers": [
                 *           {
                 *             "id": "google",
                 *             "enabled": true,
                 *             "type": "shared"
                 *           }
                 *         ],
                 *         "email_config": {
                 *           "type": "shared"
                 *         },
                 *         "data_vault_stores": [
                 *           {
                 *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *             "display_name": "Ada Lovelace"
                 *           }
                 *         ],
                 *         "payments": {}
                 *       }
                 *     }
                 */
                "application/json": {
                    display_name?: string;
                    description?: string | null;
                    is_production_mode?: boolean;
                    logo_url?: string | null;
                    full_logo_url?: string | null;
                    config?: {
                        sign_up_enabled?: boolean;
                        credential_enabled?: boolean;
                        magic_link_enabled?: boolean;
                        passkey_enabled?: boolean;
                        anonymous_enabled?: boolean;
                        allow_localhost?: boolean;
                        create_team_on_sign_up?: boolean;
                        client_team_creation_enabled?: boolean;
                        client_user_deletion_enabled?: boolean;
                        allow_user_api_keys?: boolean;
                        allow_team_api_keys?: boolean;
                        /** @enum {string} */
                        oauth_account_merge_strategy?: "link_method" | "raise_error" | "allow_duplicates";
                        team_creator_default_permissions?: {
                            id: string;
                        }[];
                        team_member_default_permissions?: {
                            id: string;
                        }[];
                        user_default_permissions?: {
                            id: string;
                        }[];
                        email_theme?: string | null;
                        domains?: {
                            domain: string;
                            handler_path: string;
                        }[];
                        oauth_providers?: {
                            /** @enum {string} */
                            id: "google" | "github" | "microsoft" | "spotify" | "facebook" | "discord" | "gitlab" | "bitbucket" | "linkedin" | "apple" | "x" | "twitch" | "oidc";
                            enabled: boolean;
                            /** @enum {string} */
                            type: "shared" | "standard";
                            client_id?: string | null;
                            client_secret?: string | null;
                            facebook_config_id?: string | null;
                            microsoft_tenant_id?: string | null;
                            issuer_url?: string | null;
                        }[];
                        email_config?: {
                            /** @constant */
                            type: "shared";
                        } | {
                            /** @constant */
                            type: "standard";
                            host: string;
                            port: number;
                            username: string;
                            password?: string;
                            sender_name: string;
                            sender_email: string;
                        };
                        data_vault_stores?: {
                            id: string;
                            display_name: string;
                        }[];
                        payments?: {
                            /** @default false */
                            test_mode?: boolean;
                            /** @default {} */
                            items?: {
                                [key: string]: {
                                    displayName?: string;
                                    /** @enum {string} */
                                    customerType: "user" | "team" | "custom";
                                };
                            };
                            /** @default {} */
                            productLines?: {
                                [key: string]: {
                                    displayName?: string;
                                    /** @enum {string} */
                                    customerType?: "user" | "team" | "custom";
                                };
                            };
                            products?: {
                                [key: string]: {
                                    displayName?: string;
                                    productLineId?: string;
                                    catalogId?: string;
                                    /** @default false */
                                    isAddOnTo?: false | {
                                        [key: string]: unknown;
                                    };
                                    /** @enum {string} */
                                    customerType: "user" | "team" | "custom";
                                    freeTrial?: [
                                        number,
                                        "millisecond" | "second" | "minute" | "hour" | "day" | "week" | "month" | "year"
                                    ];
                                    /** @default false */
                                    serverOnly?: boolean;
                                    /** @default false */
                                    stackable?: boolean;
                                    prices: "include-by-default" | {
                                        [key: string]: {
                                            USD?: string;
                                            EUR?: string;
                                            GBP?: string;
                                            JPY?: string;
                                            INR?: string;
                                            AUD?: string;
                                            CAD?: string;
                                            interval?: [
                                                number,
                                                "millisecond" | "second" | "minute" | "hour" | "day" | "week" | "month" | "year"
                                            ];
                                            serverOnly?: boolean;
                                            freeTrial?: [
                                                number,
                                                "millisecond" | "second" | "minute" | "hour" | "day" | "week" | "month" | "year"
                                            ];
                                        };
                                    };
                                    /** @default {} */
                                    includedItems?: {
                                        [key: string]: {
                                            quantity: number;
                                            /** @default never */
                                            repeat?: "never" | [
                                                number,
                                                "millisecond" | "second" | "minute" | "hour" | "day" | "week" | "month" | "year"
                                            ];
                                            /**
                                             * @default never
                                             * @enum {string}
                                             */
                                            expires?: "never" | "when-purchase-expires" | "when-repeated";
                                        };
                                    };
                                };
                            };
                        };
                    };
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "branch": "example",
                     *       "display_name": "Ada Lovelace",
                     *       "description": "Example",
                     *       "created_at_millis": 1767225600000,
                     *       "is_production_mode": true,
                     *       "logo_url": "https://app.example.com/handler",
                     *       "full_logo_url": "https://app.example.com/handler",
                     *       "owner_team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "config": {
                     *         "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *         "sign_up_enabled": true,
                     *         "credential_enabled": true,
                     *         "magic_link_enabled": true,
                     *         "passkey_enabled": true,
                     *         "anonymous_enabled": true,
                     *         "allow_localhost": true,
                     *         "create_team_on_sign_up": true,
                     *         "client_team_creation_enabled": true,
                     *         "client_user_deletion_enabled": true,
                     *         "allow_user_api_keys": true,
                     *         "allow_team_api_keys": true,
                     *         "oauth_account_merge_strategy": "link_method",
                     *         "team_creator_default_permissions": [
                     *           {
                     *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *           }
                     *         ],
                     *         "team_member_default_permissions": [
                     *           {
                     *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *           }
                     *         ],
                     *         "user_default_permissions": [
                     *           {
                     *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *           }
                     *         ],
                     *         "email_theme": "example",
                     *         "domains": [
                     *           {
                     *             "domain": "example",
                     *             "handler_path": "example"
                     *           }
                     *         ],
                     *         "oauth_providers": [
                     *           {
                     *             "id": "google",
                     *             "enabled": true,
                     *             "type": "shared",
                     *             "client_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *             "has_client_secret": true,
                     *             "facebook_config_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *             "microsoft_tenant_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *           }
                     *         ],
                     *         "enabled_oauth_providers": [
                     *           {
                     *             "id": "google"
                     *           }
                     *         ],
                     *         "email_config": {
                     *           "type": "shared"
                     *         },
                     *         "data_vault_stores": [
                     *           {
                     *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *             "display_name": "Ada Lovelace"
                     *           }
                     *         ],
                     *         "payments": {
                     *           "test_mode": true,
                     *           "items": {},
                     *           "productLines": {},
                     *           "products": {}
                     *         }
                     *       },
                     *       "production_mode_problems": [
                     *         {
                     *           "message": "example",
                     *           "relative_fix_url": "https://app.example.com/handler"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        id: string;
                        branch: string;
                        display_name: string;
                        description: string | null;
                        created_at_millis: number;
                        is_production_mode: boolean;
                        logo_url: string | null;
                        full_logo_url: string | null;
                        owner_team_id: string | null;
                        config: {
                            id: string;
                            sign_up_enabled: boolean;
                            credential_enabled: boolean;
                            magic_link_enabled: boolean;
                            passkey_enabled: boolean;
                            anonymous_enabled: boolean;
                            allow_localhost: boolean;
                            create_team_on_sign_up: boolean;
                            client_team_creation_enabled: boolean;
                            client_user_deletion_enabled: boolean;
                            allow_user_api_keys: boolean;
                            allow_team_api_keys: boolean;
                            /** @enum {string} */
                            oauth_account_merge_strategy: "link_method" | "raise_error" | "allow_duplicates";
                            team_creator_default_permissions: {
                                id: string;
                            }[];
                            team_member_default_permissions: {
                                id: string;
                            }[];
                            user_default_permissions: {
                                id: string;
                            }[];
                            email_theme: string | null;
                            domains: {
                                domain: string;
                                handler_path: string;
                            }[];
                            oauth_providers: {
                                /** @enum {string} */
                                id: "google" | "github" | "microsoft" | "spotify" | "facebook" | "discord" | "gitlab" | "bitbucket" | "linkedin" | "apple" | "x" | "twitch" | "oidc";
                                enabled: boolean;
                                /** @enum {string} */
                                type: "shared" | "standard";
                                client_id: string | null;
                                has_client_secret: boolean;
                                facebook_config_id: string | null;
                                microsoft_tenant_id: string | null;
                                issuer_url?: string | null;
                            }[];
                            enabled_oauth_providers: {
                                /** @enum {string} */
                                id: "google" | "github" | "microsoft" | "spotify" | "facebook" | "discord" | "gitlab" | "bitbucket" | "linkedin" | "apple" | "x" | "twitch" | "oidc";
                            }[];
                            email_config: {
                                /** @constant */
                                type: "shared";
                            } | {
                                /** @constant */
                                type: "standard";
                                host: string;
                                port: number;
                                username: string;
                                has_password: boolean;
                                sender_name: string;
                                sender_email: string;
                            };
                            data_vault_stores: {
                                id: string;
                                display_name: string;
                            }[];
                            payments: {
                                test_mode: boolean;
                                items: {
                                    [key: string]: {
                                        displayName?: string;
                                        /** @enum {string} */
                                        customerType: "user" | "team" | "custom";
                                    };
                                };
                                productLines: {
                                    [key: string]: {
                                        displayName?: string;
                                        /** @enum {string} */
                                        customerType?: "user" | "team" | "custom";
                                    };
                                };
                                products: {
                                    [key: string]: {
                                        [key: string]: unknown;
                                    };
                                };
                            };
                        };
                        production_mode_problems: {
                            message: string;
                            relative_fix_url: string;
                        }[];
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PRODUCTION_MODE_HAS_PROBLEMS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `EXPECTED_INTERNAL_PROJECT`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `PROJECT_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "projects-transfer": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "project_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "new_team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                 *     }
                 */
                "application/json": {
                    project_id: string;
                    new_team_id: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PRODUCTION_MODE_HAS_PROBLEMS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `CLIENT_AUTHENTICATION_REQUIRED`, `EXPECTED_INTERNAL_PROJECT`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `PROJECT_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emails-sendSignInInvitation": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com",
                 *       "callback_url": "https://app.example.com/handler"
                 *     }
                 */
                "application/json": {
                    email: string;
                    callback_url: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "emails-sendTestEmail": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "recipient_email": "ada@example.com",
                 *       "email_config": {
                 *         "type": "shared"
                 *       }
                 *     }
                 */
                "application/json": {
                    recipient_email: string;
                    email_config: {
                        /** @constant */
                        type: "shared";
                    } | {
                        /** @constant */
                        type: "standard";
                        host: string;
                        port: number;
                        username: string;
                        password: string;
                        sender_name: string;
                        sender_email: string;
                    };
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "error_message": "example",
                     *       "error_reason": "host_not_allowed"
                     *     }
                     */
                    "application/json": {
                        success: boolean;
                        error_message: string | null;
                        /** @enum {string} */
                        error_reason?: "host_not_allowed" | "port_not_allowed" | "host_not_found" | "connection_refused" | "timed_out" | "tls_failed" | "auth_failed" | "rejected" | "connection_failed";
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EMAIL_PREVIEW_NEEDS_OWNER`, `EMAIL_RECIPIENTS_NOT_FOUND`, `EMAIL_RENDERING_ERROR`, `EMAIL_SERVER_HOST_NOT_ALLOWED`, `EMAIL_SERVER_PORT_NOT_ALLOWED`, `EMAIL_SERVER_SEND_FAILED`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REQUIRES_CUSTOM_EMAIL_SERVER`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_CONTENT_NOT_FOUND`, `EMAIL_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_TEMPLATE_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `EMAIL_RATE_LIMITED`, `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhooks-listEndpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "url": "example",
                     *           "description": "Example",
                     *           "event_types": [
                     *             "example"
                     *           ],
                     *           "enabled": true,
                     *           "disabled_reason": "example",
                     *           "previous_secret_expires_at_millis": 1767225600000,
                     *           "created_at_millis": 1767225600000
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            url: string;
                            description: string;
                            event_types: string[] | null;
                            enabled: boolean;
                            disabled_reason: string | null;
                            previous_secret_expires_at_millis: number | null;
                            created_at_millis: number;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `WEBHOOK_URL_NOT_ALLOWED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `WEBHOOK_DELIVERY_NOT_FOUND`, `WEBHOOK_ENDPOINT_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhooks-createEndpoint": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://app.example.com/handler",
                 *       "description": "Example",
                 *       "event_types": [
                 *         "user.created"
                 *       ],
                 *       "enabled": true
                 *     }
                 */
                "application/json": {
                    /** Format: uri */
                    url: string;
                    description?: string;
                    event_types?: ("user.created" | "user.updated" | "user.deleted" | "team.created" | "team.updated" | "team.deleted" | "team_membership.created" | "team_membership.deleted" | "team_permission.created" | "team_permission.deleted" | "project_permission.created" | "project_permission.deleted" | "session.created")[] | null;
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "url": "example",
                     *       "description": "Example",
                     *       "event_types": [
                     *         "example"
                     *       ],
                     *       "enabled": true,
                     *       "disabled_reason": "example",
                     *       "previous_secret_expires_at_millis": 1767225600000,
                     *       "created_at_millis": 1767225600000,
                     *       "secret": "example"
                     *     }
                     */
                    "application/json": {
                        id: string;
                        url: string;
                        description: string;
                        event_types: string[] | null;
                        enabled: boolean;
                        disabled_reason: string | null;
                        previous_secret_expires_at_millis: number | null;
                        created_at_millis: number;
                        secret: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `WEBHOOK_URL_NOT_ALLOWED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `WEBHOOK_DELIVERY_NOT_FOUND`, `WEBHOOK_ENDPOINT_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhooks-getEndpoint": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "url": "example",
                     *       "description": "Example",
                     *       "event_types": [
                     *         "example"
                     *       ],
                     *       "enabled": true,
                     *       "disabled_reason": "example",
                     *       "previous_secret_expires_at_millis": 1767225600000,
                     *       "created_at_millis": 1767225600000
                     *     }
                     */
                    "application/json": {
                        id: string;
                        url: string;
                        description: string;
                        event_types: string[] | null;
                        enabled: boolean;
                        disabled_reason: string | null;
                        previous_secret_expires_at_millis: number | null;
                        created_at_millis: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `WEBHOOK_URL_NOT_ALLOWED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `WEBHOOK_DELIVERY_NOT_FOUND`, `WEBHOOK_ENDPOINT_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhooks-deleteEndpoint": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `WEBHOOK_URL_NOT_ALLOWED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `WEBHOOK_DELIVERY_NOT_FOUND`, `WEBHOOK_ENDPOINT_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhooks-updateEndpoint": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "url": "https://app.example.com/handler",
                 *       "description": "Example",
                 *       "event_types": [
                 *         "user.created"
                 *       ],
                 *       "enabled": true
                 *     }
                 */
                "application/json": {
                    /** Format: uri */
                    url?: string;
                    description?: string;
                    event_types?: ("user.created" | "user.updated" | "user.deleted" | "team.created" | "team.updated" | "team.deleted" | "team_membership.created" | "team_membership.deleted" | "team_permission.created" | "team_permission.deleted" | "project_permission.created" | "project_permission.deleted" | "session.created")[] | null;
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "url": "example",
                     *       "description": "Example",
                     *       "event_types": [
                     *         "example"
                     *       ],
                     *       "enabled": true,
                     *       "disabled_reason": "example",
                     *       "previous_secret_expires_at_millis": 1767225600000,
                     *       "created_at_millis": 1767225600000
                     *     }
                     */
                    "application/json": {
                        id: string;
                        url: string;
                        description: string;
                        event_types: string[] | null;
                        enabled: boolean;
                        disabled_reason: string | null;
                        previous_secret_expires_at_millis: number | null;
                        created_at_millis: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `WEBHOOK_URL_NOT_ALLOWED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `WEBHOOK_DELIVERY_NOT_FOUND`, `WEBHOOK_ENDPOINT_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhooks-listDeliveries": {
        parameters: {
            query?: {
                /** @example 1 */
                limit?: number;
            };
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "message_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "endpoint_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "event_type": "example",
                     *           "state": "pending",
                     *           "attempts": 1,
                     *           "last_status": 1,
                     *           "last_error": "example",
                     *           "last_response_snippet": "example",
                     *           "created_at_millis": 1767225600000,
                     *           "sent_at_millis": 1767225600000
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            message_id: string;
                            endpoint_id: string;
                            event_type: string;
                            /** @enum {string} */
                            state: "pending" | "sent" | "dead";
                            attempts: number;
                            last_status: number | null;
                            last_error: string | null;
                            last_response_snippet: string | null;
                            created_at_millis: number;
                            sent_at_millis: number | null;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `WEBHOOK_URL_NOT_ALLOWED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `WEBHOOK_DELIVERY_NOT_FOUND`, `WEBHOOK_ENDPOINT_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhooks-retryDelivery": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                endpoint_id: string;
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                delivery_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "delivery_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *     }
                     */
                    "application/json": {
                        delivery_id: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `WEBHOOK_URL_NOT_ALLOWED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `WEBHOOK_DELIVERY_NOT_FOUND`, `WEBHOOK_ENDPOINT_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhooks-replay": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "since_millis": 1767225600000
                 *     }
                 */
                "application/json": {
                    since_millis: number;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "replayed": 1
                     *     }
                     */
                    "application/json": {
                        replayed: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `WEBHOOK_URL_NOT_ALLOWED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `WEBHOOK_DELIVERY_NOT_FOUND`, `WEBHOOK_ENDPOINT_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhooks-rotateSecret": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "overlap_seconds": 1
                 *     }
                 */
                "application/json": {
                    overlap_seconds?: number;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "url": "example",
                     *       "description": "Example",
                     *       "event_types": [
                     *         "example"
                     *       ],
                     *       "enabled": true,
                     *       "disabled_reason": "example",
                     *       "previous_secret_expires_at_millis": 1767225600000,
                     *       "created_at_millis": 1767225600000,
                     *       "secret": "example"
                     *     }
                     */
                    "application/json": {
                        id: string;
                        url: string;
                        description: string;
                        event_types: string[] | null;
                        enabled: boolean;
                        disabled_reason: string | null;
                        previous_secret_expires_at_millis: number | null;
                        created_at_millis: number;
                        secret: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `WEBHOOK_URL_NOT_ALLOWED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `WEBHOOK_DELIVERY_NOT_FOUND`, `WEBHOOK_ENDPOINT_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhooks-sendTestEvent": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                endpoint_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "message_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "delivery_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *     }
                     */
                    "application/json": {
                        message_id: string;
                        delivery_id: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `WEBHOOK_URL_NOT_ALLOWED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `WEBHOOK_DELIVERY_NOT_FOUND`, `WEBHOOK_ENDPOINT_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "workflowTokens-list": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "description": "Example",
                     *           "created_at_millis": 1767225600000,
                     *           "expires_at_millis": 1767225600000,
                     *           "is_expired": true
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            description: string;
                            created_at_millis: number;
                            expires_at_millis: number;
                            is_expired: boolean;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `WORKFLOW_TOKEN_DOES_NOT_EXIST` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "workflowTokens-create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "description": "Example",
                 *       "expires_in_seconds": 60
                 *     }
                 */
                "application/json": {
                    description?: string;
                    expires_in_seconds?: number;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "description": "Example",
                     *       "created_at_millis": 1767225600000,
                     *       "expires_at_millis": 1767225600000,
                     *       "is_expired": true,
                     *       "token": "example"
                     *     }
                     */
                    "application/json": {
                        id: string;
                        description: string;
                        created_at_millis: number;
                        expires_at_millis: number;
                        is_expired: boolean;
                        token: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `WORKFLOW_TOKEN_DOES_NOT_EXIST` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "workflowTokens-revoke": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                token_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `WORKFLOW_TOKEN_DOES_NOT_EXIST` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "oauth-listProviders": {
        parameters: {
            query?: {
                /** @example me */
                user_id?: "me" | string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "email": "ada@example.com",
                     *           "type": "example",
                     *           "provider_config_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "allow_sign_in": true,
                     *           "allow_connected_accounts": true
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            email: string | null;
                            type: string;
                            provider_config_id: string;
                            user_id: string;
                            allow_sign_in: boolean;
                            allow_connected_accounts: boolean;
                            account_id?: string;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `INVALID_AUTHORIZATION_CODE`, `INVALID_OAUTH_CLIENT_ID_OR_SECRET`, `INVALID_SHARED_OAUTH_PROVIDER_ID`, `INVALID_STANDARD_OAUTH_PROVIDER_ID`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS`, `OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE`, `OAUTH_CONNECTION_NOT_CONNECTED_TO_USER`, `OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS`, `OAUTH_PROVIDER_ACCESS_DENIED`, `OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN`, `OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `SHARED_OAUTH_KEYS_NOT_CONFIGURED`, `SIGN_UP_NOT_ENABLED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PROVIDER_REJECTED`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `OUTER_OAUTH_TIMEOUT` */
            408: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE`, `OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER`, `USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `OAUTH_PROVIDER_REQUEST_FAILED` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "oauth-createProvider": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user_id": "me",
                 *       "provider_config_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "account_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "email": "ada@example.com",
                 *       "allow_sign_in": true,
                 *       "allow_connected_accounts": true
                 *     }
                 */
                "application/json": {
                    user_id: "me" | string;
                    provider_config_id: string;
                    account_id: string;
                    email?: string | null;
                    allow_sign_in?: boolean;
                    allow_connected_accounts?: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "email": "ada@example.com",
                     *       "type": "example",
                     *       "provider_config_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "allow_sign_in": true,
                     *       "allow_connected_accounts": true,
                     *       "account_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *     }
                     */
                    "application/json": {
                        id: string;
                        email: string | null;
                        type: string;
                        provider_config_id: string;
                        user_id: string;
                        allow_sign_in: boolean;
                        allow_connected_accounts: boolean;
                        account_id?: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `INVALID_AUTHORIZATION_CODE`, `INVALID_OAUTH_CLIENT_ID_OR_SECRET`, `INVALID_SHARED_OAUTH_PROVIDER_ID`, `INVALID_STANDARD_OAUTH_PROVIDER_ID`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS`, `OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE`, `OAUTH_CONNECTION_NOT_CONNECTED_TO_USER`, `OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS`, `OAUTH_PROVIDER_ACCESS_DENIED`, `OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN`, `OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `SHARED_OAUTH_KEYS_NOT_CONFIGURED`, `SIGN_UP_NOT_ENABLED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PROVIDER_REJECTED`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `OUTER_OAUTH_TIMEOUT` */
            408: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE`, `OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER`, `USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `OAUTH_PROVIDER_REQUEST_FAILED` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "oauth-getProvider": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example me */
                user_id: "me" | string;
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                provider_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "email": "ada@example.com",
                     *       "type": "example",
                     *       "provider_config_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "allow_sign_in": true,
                     *       "allow_connected_accounts": true,
                     *       "account_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *     }
                     */
                    "application/json": {
                        id: string;
                        email: string | null;
                        type: string;
                        provider_config_id: string;
                        user_id: string;
                        allow_sign_in: boolean;
                        allow_connected_accounts: boolean;
                        account_id?: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `INVALID_AUTHORIZATION_CODE`, `INVALID_OAUTH_CLIENT_ID_OR_SECRET`, `INVALID_SHARED_OAUTH_PROVIDER_ID`, `INVALID_STANDARD_OAUTH_PROVIDER_ID`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS`, `OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE`, `OAUTH_CONNECTION_NOT_CONNECTED_TO_USER`, `OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS`, `OAUTH_PROVIDER_ACCESS_DENIED`, `OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN`, `OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `SHARED_OAUTH_KEYS_NOT_CONFIGURED`, `SIGN_UP_NOT_ENABLED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PROVIDER_REJECTED`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `OUTER_OAUTH_TIMEOUT` */
            408: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE`, `OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER`, `USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `OAUTH_PROVIDER_REQUEST_FAILED` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "oauth-deleteProvider": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example me */
                user_id: "me" | string;
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                provider_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `INVALID_AUTHORIZATION_CODE`, `INVALID_OAUTH_CLIENT_ID_OR_SECRET`, `INVALID_SHARED_OAUTH_PROVIDER_ID`, `INVALID_STANDARD_OAUTH_PROVIDER_ID`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS`, `OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE`, `OAUTH_CONNECTION_NOT_CONNECTED_TO_USER`, `OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS`, `OAUTH_PROVIDER_ACCESS_DENIED`, `OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN`, `OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `SHARED_OAUTH_KEYS_NOT_CONFIGURED`, `SIGN_UP_NOT_ENABLED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PROVIDER_REJECTED`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `OUTER_OAUTH_TIMEOUT` */
            408: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE`, `OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER`, `USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `OAUTH_PROVIDER_REQUEST_FAILED` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "oauth-updateProvider": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example me */
                user_id: "me" | string;
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                provider_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "allow_sign_in": true,
                 *       "allow_connected_accounts": true,
                 *       "email": "ada@example.com",
                 *       "account_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                 *     }
                 */
                "application/json": {
                    allow_sign_in?: boolean;
                    allow_connected_accounts?: boolean;
                    email?: string | null;
                    account_id?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "email": "ada@example.com",
                     *       "type": "example",
                     *       "provider_config_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "allow_sign_in": true,
                     *       "allow_connected_accounts": true,
                     *       "account_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *     }
                     */
                    "application/json": {
                        id: string;
                        email: string | null;
                        type: string;
                        provider_config_id: string;
                        user_id: string;
                        allow_sign_in: boolean;
                        allow_connected_accounts: boolean;
                        account_id?: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `INVALID_AUTHORIZATION_CODE`, `INVALID_OAUTH_CLIENT_ID_OR_SECRET`, `INVALID_SHARED_OAUTH_PROVIDER_ID`, `INVALID_STANDARD_OAUTH_PROVIDER_ID`, `MULTI_FACTOR_AUTHENTICATION_REQUIRED`, `OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS`, `OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE`, `OAUTH_CONNECTION_NOT_CONNECTED_TO_USER`, `OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS`, `OAUTH_PROVIDER_ACCESS_DENIED`, `OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN`, `OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `SHARED_OAUTH_KEYS_NOT_CONFIGURED`, `SIGN_UP_NOT_ENABLED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PROVIDER_REJECTED`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `OUTER_OAUTH_TIMEOUT` */
            408: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE`, `OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER`, `USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `OAUTH_PROVIDER_REQUEST_FAILED` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "passkeys-list": {
        parameters: {
            query?: {
                /** @example me */
                user_id?: "me" | string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "name": "Example",
                     *           "rp_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "device_type": "example",
                     *           "backed_up": true,
                     *           "created_at_millis": 1767225600000,
                     *           "last_used_at_millis": 1767225600000
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            user_id: string;
                            name: string;
                            rp_id: string;
                            device_type: string;
                            backed_up: boolean;
                            created_at_millis: number;
                            last_used_at_millis: number | null;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PASSKEY_REGISTRATION_FAILED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RECENT_SIGN_IN_REQUIRED` */
            403: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PASSKEY_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "passkeys-delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example me */
                user_id: "me" | string;
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                passkey_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PASSKEY_REGISTRATION_FAILED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RECENT_SIGN_IN_REQUIRED` */
            403: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PASSKEY_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "passkeys-update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example me */
                user_id: "me" | string;
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                passkey_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "Example"
                 *     }
                 */
                "application/json": {
                    name: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "name": "Example",
                     *       "rp_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "device_type": "example",
                     *       "backed_up": true,
                     *       "created_at_millis": 1767225600000,
                     *       "last_used_at_millis": 1767225600000
                     *     }
                     */
                    "application/json": {
                        id: string;
                        user_id: string;
                        name: string;
                        rp_id: string;
                        device_type: string;
                        backed_up: boolean;
                        created_at_millis: number;
                        last_used_at_millis: number | null;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PASSKEY_REGISTRATION_FAILED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RECENT_SIGN_IN_REQUIRED` */
            403: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PASSKEY_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "payments-billingPortal": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example user */
                customer_type: "user" | "team" | "custom";
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                customer_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "return_url": "https://app.example.com/handler"
                 *     }
                 */
                "application/json": {
                    /** Format: uri */
                    return_url: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "url": "example"
                     *     }
                     */
                    "application/json": {
                        url: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `CUSTOMER_DOES_NOT_EXIST`, `INVALID_ACCESS_TYPE`, `ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH`, `ITEM_QUANTITY_INSUFFICIENT_AMOUNT`, `PRODUCT_ALREADY_GRANTED`, `PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH`, `PRODUCT_DOES_NOT_EXIST`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ITEM_NOT_FOUND`, `STRIPE_ACCOUNT_INFO_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PAYMENT_PROVIDER_REQUEST_FAILED` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "payments-getItem": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example user */
                customer_type: "user" | "team" | "custom";
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                customer_id: string;
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                item_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "display_name": "Ada Lovelace",
                     *       "quantity": 1,
                     *       "non_negative_quantity": 1
                     *     }
                     */
                    "application/json": {
                        id: string;
                        display_name: string;
                        quantity: number;
                        non_negative_quantity: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `CUSTOMER_DOES_NOT_EXIST`, `INVALID_ACCESS_TYPE`, `ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH`, `ITEM_QUANTITY_INSUFFICIENT_AMOUNT`, `PRODUCT_ALREADY_GRANTED`, `PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH`, `PRODUCT_DOES_NOT_EXIST`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ITEM_NOT_FOUND`, `STRIPE_ACCOUNT_INFO_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PAYMENT_PROVIDER_REQUEST_FAILED` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "payments-updateItemQuantity": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example user */
                customer_type: "user" | "team" | "custom";
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                customer_id: string;
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                item_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "delta": 1,
                 *       "expires_at": 1,
                 *       "description": "Example",
                 *       "allow_negative": true
                 *     }
                 */
                "application/json": {
                    delta: number;
                    expires_at?: (number | string) | null;
                    description?: string | null;
                    allow_negative?: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "display_name": "Ada Lovelace",
                     *       "quantity": 1,
                     *       "non_negative_quantity": 1
                     *     }
                     */
                    "application/json": {
                        id: string;
                        display_name: string;
                        quantity: number;
                        non_negative_quantity: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `CUSTOMER_DOES_NOT_EXIST`, `INVALID_ACCESS_TYPE`, `ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH`, `ITEM_QUANTITY_INSUFFICIENT_AMOUNT`, `PRODUCT_ALREADY_GRANTED`, `PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH`, `PRODUCT_DOES_NOT_EXIST`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ITEM_NOT_FOUND`, `STRIPE_ACCOUNT_INFO_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PAYMENT_PROVIDER_REQUEST_FAILED` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "payments-listProducts": {
        parameters: {
            query?: {
                /** @example example */
                cursor?: string;
                /** @example 1 */
                limit?: number;
            };
            header?: never;
            path: {
                /** @example user */
                customer_type: "user" | "team" | "custom";
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                customer_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "quantity": 1,
                     *           "product": {
                     *             "display_name": "Ada Lovelace",
                     *             "customer_type": "user",
                     *             "server_only": true,
                     *             "stackable": true
                     *           }
                     *         }
                     *       ],
                     *       "is_paginated": true,
                     *       "pagination": {
                     *         "next_cursor": "example"
                     *       }
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string | null;
                            quantity: number;
                            product: {
                                display_name: string;
                                /** @enum {string} */
                                customer_type: "user" | "team" | "custom";
                                server_only: boolean;
                                stackable: boolean;
                            };
                        }[];
                        /** @constant */
                        is_paginated: true;
                        pagination: {
                            next_cursor: string | null;
                        };
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `CUSTOMER_DOES_NOT_EXIST`, `INVALID_ACCESS_TYPE`, `ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH`, `ITEM_QUANTITY_INSUFFICIENT_AMOUNT`, `PRODUCT_ALREADY_GRANTED`, `PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH`, `PRODUCT_DOES_NOT_EXIST`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ITEM_NOT_FOUND`, `STRIPE_ACCOUNT_INFO_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PAYMENT_PROVIDER_REQUEST_FAILED` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "payments-grantProduct": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example user */
                customer_type: "user" | "team" | "custom";
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                customer_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "product_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "product_inline": {},
                 *       "quantity": 1
                 *     }
                 */
                "application/json": {
                    product_id?: string;
                    product_inline?: {
                        [key: string]: unknown;
                    };
                    quantity?: number;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "quantity": 1,
                     *       "product": {
                     *         "display_name": "Ada Lovelace",
                     *         "customer_type": "user",
                     *         "server_only": true,
                     *         "stackable": true
                     *       }
                     *     }
                     */
                    "application/json": {
                        id: string | null;
                        quantity: number;
                        product: {
                            display_name: string;
                            /** @enum {string} */
                            customer_type: "user" | "team" | "custom";
                            server_only: boolean;
                            stackable: boolean;
                        };
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `CUSTOMER_DOES_NOT_EXIST`, `INVALID_ACCESS_TYPE`, `ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH`, `ITEM_QUANTITY_INSUFFICIENT_AMOUNT`, `PRODUCT_ALREADY_GRANTED`, `PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH`, `PRODUCT_DOES_NOT_EXIST`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ITEM_NOT_FOUND`, `STRIPE_ACCOUNT_INFO_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PAYMENT_PROVIDER_REQUEST_FAILED` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "payments-createPurchaseUrl": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "customer_type": "user",
                 *       "customer_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "product_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "inline_product": {},
                 *       "price_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "quantity": 1,
                 *       "return_url": "https://app.example.com/handler"
                 *     }
                 */
                "application/json": {
                    /** @enum {string} */
                    customer_type: "user" | "team" | "custom";
                    customer_id: string;
                    product_id?: string;
                    inline_product?: {
                        [key: string]: unknown;
                    };
                    price_id?: string;
                    quantity?: number;
                    /** Format: uri */
                    return_url: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "url": "example"
                     *     }
                     */
                    "application/json": {
                        url: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `CUSTOMER_DOES_NOT_EXIST`, `INVALID_ACCESS_TYPE`, `ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH`, `ITEM_QUANTITY_INSUFFICIENT_AMOUNT`, `PRODUCT_ALREADY_GRANTED`, `PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH`, `PRODUCT_DOES_NOT_EXIST`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ITEM_NOT_FOUND`, `STRIPE_ACCOUNT_INFO_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PAYMENT_PROVIDER_REQUEST_FAILED` */
            502: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "permissions-listProjectDefinitions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "description": "Example",
                     *           "contained_permission_ids": [
                     *             "example"
                     *           ],
                     *           "is_system_permission": true
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            description: string | null;
                            contained_permission_ids: string[];
                            is_system_permission: boolean;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CONTAINED_PERMISSION_NOT_FOUND`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PERMISSION_ID_ALREADY_EXISTS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PERMISSION_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND`, `WRONG_PERMISSION_SCOPE` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "permissions-createProjectDefinition": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "example",
                 *       "description": "Example",
                 *       "contained_permission_ids": [
                 *         "example"
                 *       ]
                 *     }
                 */
                "application/json": {
                    id: string;
                    description?: string | null;
                    contained_permission_ids?: string[];
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "description": "Example",
                     *       "contained_permission_ids": [
                     *         "example"
                     *       ],
                     *       "is_system_permission": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        description: string | null;
                        contained_permission_ids: string[];
                        is_system_permission: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CONTAINED_PERMISSION_NOT_FOUND`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PERMISSION_ID_ALREADY_EXISTS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PERMISSION_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND`, `WRONG_PERMISSION_SCOPE` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "permissions-getProjectDefinition": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example example */
                permission_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "description": "Example",
                     *       "contained_permission_ids": [
                     *         "example"
                     *       ],
                     *       "is_system_permission": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        description: string | null;
                        contained_permission_ids: string[];
                        is_system_permission: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CONTAINED_PERMISSION_NOT_FOUND`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PERMISSION_ID_ALREADY_EXISTS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PERMISSION_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND`, `WRONG_PERMISSION_SCOPE` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "permissions-deleteProjectDefinition": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example example */
                permission_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CONTAINED_PERMISSION_NOT_FOUND`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PERMISSION_ID_ALREADY_EXISTS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PERMISSION_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND`, `WRONG_PERMISSION_SCOPE` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "permissions-updateProjectDefinition": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example example */
                permission_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "id": "example",
                 *       "description": "Example",
                 *       "contained_permission_ids": [
                 *         "example"
                 *       ]
                 *     }
                 */
                "application/json": {
                    id?: string;
                    description?: string | null;
                    contained_permission_ids?: string[];
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "description": "Example",
                     *       "contained_permission_ids": [
                     *         "example"
                     *       ],
                     *       "is_system_permission": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        description: string | null;
                        contained_permission_ids: string[];
                        is_system_permission: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CONTAINED_PERMISSION_NOT_FOUND`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PERMISSION_ID_ALREADY_EXISTS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PERMISSION_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND`, `WRONG_PERMISSION_SCOPE` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "permissions-listProjectPermissions": {
        parameters: {
            query?: {
                /** @example me */
                user_id?: "me" | string;
                /** @example example */
                permission_id?: string;
                /** @example true */
                recursive?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            user_id: string;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CONTAINED_PERMISSION_NOT_FOUND`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PERMISSION_ID_ALREADY_EXISTS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PERMISSION_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND`, `WRONG_PERMISSION_SCOPE` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "permissions-grantProjectPermission": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example me */
                user_id: "me" | string;
                /** @example example */
                permission_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *     }
                     */
                    "application/json": {
                        id: string;
                        user_id: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CONTAINED_PERMISSION_NOT_FOUND`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PERMISSION_ID_ALREADY_EXISTS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PERMISSION_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND`, `WRONG_PERMISSION_SCOPE` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "permissions-revokeProjectPermission": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example me */
                user_id: "me" | string;
                /** @example example */
                permission_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CONTAINED_PERMISSION_NOT_FOUND`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PERMISSION_ID_ALREADY_EXISTS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PERMISSION_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND`, `WRONG_PERMISSION_SCOPE` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "sessions-jwks": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                project_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "keys": [
                     *         {}
                     *       ]
                     *     }
                     */
                    "application/json": {
                        keys: {
                            [key: string]: unknown;
                        }[];
                    };
                };
            };
            /** @description `CANNOT_DELETE_CURRENT_SESSION`, `SCHEMA_ERROR`, `USER_ID_DOES_NOT_EXIST` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PROJECT_NOT_FOUND`, `SESSION_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "projects-current": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "display_name": "Ada Lovelace",
                     *       "logo_url": "https://app.example.com/handler",
                     *       "full_logo_url": "https://app.example.com/handler",
                     *       "config": {
                     *         "sign_up_enabled": true,
                     *         "credential_enabled": true,
                     *         "magic_link_enabled": true,
                     *         "passkey_enabled": true,
                     *         "anonymous_enabled": true,
                     *         "client_team_creation_enabled": true,
                     *         "client_user_deletion_enabled": true,
                     *         "allow_user_api_keys": true,
                     *         "allow_team_api_keys": true,
                     *         "enabled_oauth_providers": [
                     *           {
                     *             "id": "google"
                     *           }
                     *         ],
                     *         "domains": [
                     *           {
                     *             "domain": "example",
                     *             "handler_path": "example"
                     *           }
                     *         ]
                     *       }
                     *     }
                     */
                    "application/json": {
                        id: string;
                        display_name: string;
                        logo_url: string | null;
                        full_logo_url: string | null;
                        config: {
                            sign_up_enabled: boolean;
                            credential_enabled: boolean;
                            magic_link_enabled: boolean;
                            passkey_enabled: boolean;
                            anonymous_enabled: boolean;
                            client_team_creation_enabled: boolean;
                            client_user_deletion_enabled: boolean;
                            allow_user_api_keys: boolean;
                            allow_team_api_keys: boolean;
                            enabled_oauth_providers: {
                                /** @enum {string} */
                                id: "google" | "github" | "microsoft" | "spotify" | "facebook" | "discord" | "gitlab" | "bitbucket" | "linkedin" | "apple" | "x" | "twitch" | "oidc";
                            }[];
                            domains: {
                                domain: string;
                                handler_path: string;
                            }[];
                        };
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PRODUCTION_MODE_HAS_PROBLEMS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `EXPECTED_INTERNAL_PROJECT`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `PROJECT_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "userTeamApiKeys-listTeamKeys": {
        parameters: {
            query: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                team_id: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "description": "Example",
                     *           "is_public": true,
                     *           "created_at_millis": 1767225600000,
                     *           "expires_at_millis": 1767225600000,
                     *           "manually_revoked_at_millis": 1767225600000,
                     *           "type": "team",
                     *           "team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "value": {
                     *             "last_four": "example"
                     *           }
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            description: string;
                            is_public: boolean;
                            created_at_millis: number;
                            expires_at_millis: number | null;
                            manually_revoked_at_millis: number | null;
                            /** @constant */
                            type: "team";
                            team_id: string;
                            value: {
                                last_four: string;
                            };
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `API_KEYS_NOT_ENABLED`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `PUBLIC_API_KEY_CANNOT_BE_REVOKED`, `SCHEMA_ERROR`, `WRONG_API_KEY_TYPE` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `API_KEY_EXPIRED`, `API_KEY_REVOKED`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `API_KEY_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "userTeamApiKeys-createTeamKey": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "description": "Example",
                 *       "expires_at_millis": 1767225600000,
                 *       "is_public": true
                 *     }
                 */
                "application/json": {
                    team_id: string;
                    description: string;
                    expires_at_millis?: number | null;
                    is_public?: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "description": "Example",
                     *       "is_public": true,
                     *       "created_at_millis": 1767225600000,
                     *       "expires_at_millis": 1767225600000,
                     *       "manually_revoked_at_millis": 1767225600000,
                     *       "type": "team",
                     *       "team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "value": "example"
                     *     }
                     */
                    "application/json": {
                        id: string;
                        description: string;
                        is_public: boolean;
                        created_at_millis: number;
                        expires_at_millis: number | null;
                        manually_revoked_at_millis: number | null;
                        /** @constant */
                        type: "team";
                        team_id: string;
                        value: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `API_KEYS_NOT_ENABLED`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `PUBLIC_API_KEY_CANNOT_BE_REVOKED`, `SCHEMA_ERROR`, `WRONG_API_KEY_TYPE` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `API_KEY_EXPIRED`, `API_KEY_REVOKED`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `API_KEY_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "userTeamApiKeys-getTeamKey": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                api_key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "description": "Example",
                     *       "is_public": true,
                     *       "created_at_millis": 1767225600000,
                     *       "expires_at_millis": 1767225600000,
                     *       "manually_revoked_at_millis": 1767225600000,
                     *       "type": "team",
                     *       "team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "value": {
                     *         "last_four": "example"
                     *       }
                     *     }
                     */
                    "application/json": {
                        id: string;
                        description: string;
                        is_public: boolean;
                        created_at_millis: number;
                        expires_at_millis: number | null;
                        manually_revoked_at_millis: number | null;
                        /** @constant */
                        type: "team";
                        team_id: string;
                        value: {
                            last_four: string;
                        };
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `API_KEYS_NOT_ENABLED`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `PUBLIC_API_KEY_CANNOT_BE_REVOKED`, `SCHEMA_ERROR`, `WRONG_API_KEY_TYPE` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `API_KEY_EXPIRED`, `API_KEY_REVOKED`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `API_KEY_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "userTeamApiKeys-updateTeamKey": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                api_key_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "description": "Example",
                 *       "expires_at_millis": 1767225600000,
                 *       "revoked": true
                 *     }
                 */
                "application/json": {
                    description?: string;
                    expires_at_millis?: number | null;
                    revoked?: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "description": "Example",
                     *       "is_public": true,
                     *       "created_at_millis": 1767225600000,
                     *       "expires_at_millis": 1767225600000,
                     *       "manually_revoked_at_millis": 1767225600000,
                     *       "type": "team",
                     *       "team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "value": {
                     *         "last_four": "example"
                     *       }
                     *     }
                     */
                    "application/json": {
                        id: string;
                        description: string;
                        is_public: boolean;
                        created_at_millis: number;
                        expires_at_millis: number | null;
                        manually_revoked_at_millis: number | null;
                        /** @constant */
                        type: "team";
                        team_id: string;
                        value: {
                            last_four: string;
                        };
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `API_KEYS_NOT_ENABLED`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `PUBLIC_API_KEY_CANNOT_BE_REVOKED`, `SCHEMA_ERROR`, `WRONG_API_KEY_TYPE` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `API_KEY_EXPIRED`, `API_KEY_REVOKED`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `API_KEY_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "userTeamApiKeys-checkTeamKey": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "api_key": "example"
                 *     }
                 */
                "application/json": {
                    api_key: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "description": "Example",
                     *       "is_public": true,
                     *       "created_at_millis": 1767225600000,
                     *       "expires_at_millis": 1767225600000,
                     *       "manually_revoked_at_millis": 1767225600000,
                     *       "type": "team",
                     *       "team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "value": {
                     *         "last_four": "example"
                     *       }
                     *     }
                     */
                    "application/json": {
                        id: string;
                        description: string;
                        is_public: boolean;
                        created_at_millis: number;
                        expires_at_millis: number | null;
                        manually_revoked_at_millis: number | null;
                        /** @constant */
                        type: "team";
                        team_id: string;
                        value: {
                            last_four: string;
                        };
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `API_KEYS_NOT_ENABLED`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `PUBLIC_API_KEY_CANNOT_BE_REVOKED`, `SCHEMA_ERROR`, `WRONG_API_KEY_TYPE` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `API_KEY_EXPIRED`, `API_KEY_REVOKED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `API_KEY_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "teamInvitations-list": {
        parameters: {
            query: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                team_id: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "recipient_email": "ada@example.com",
                     *           "expires_at_millis": 1767225600000
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            team_id: string;
                            recipient_email: string;
                            expires_at_millis: number;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `TEAM_MEMBERSHIP_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "teamInvitations-revoke": {
        parameters: {
            query: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                team_id: string;
            };
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                invitation_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `TEAM_MEMBERSHIP_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "teamInvitations-accept": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "code": "ABC123"
                 *     }
                 */
                "application/json": {
                    code: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                        team_id: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `TEAM_MEMBERSHIP_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "teamInvitations-checkCode": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "code": "ABC123"
                 *     }
                 */
                "application/json": {
                    code: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "is_code_valid": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        is_code_valid: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `TEAM_MEMBERSHIP_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "teamInvitations-details": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "code": "ABC123"
                 *     }
                 */
                "application/json": {
                    code: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "team_display_name": "Ada Lovelace"
                     *     }
                     */
                    "application/json": {
                        team_id: string;
                        team_display_name: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `TEAM_MEMBERSHIP_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "teamInvitations-sendCode": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "email": "ada@example.com",
                 *       "team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "callback_url": "https://app.example.com/handler"
                 *     }
                 */
                "application/json": {
                    email: string;
                    team_id: string;
                    callback_url: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true,
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                        id: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `TEAM_MEMBERSHIP_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "teams-listMemberProfiles": {
        parameters: {
            query?: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                team_id?: string;
                /** @example me */
                user_id?: "me" | string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "display_name": "Ada Lovelace",
                     *           "profile_image_url": "https://app.example.com/handler",
                     *           "user": {
                     *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *             "display_name": "Ada Lovelace",
                     *             "primary_email": "ada@example.com",
                     *             "primary_email_verified": true,
                     *             "auth_with_email": true,
                     *             "profile_image_url": "https://app.example.com/handler",
                     *             "signed_up_at_millis": 1767225600000,
                     *             "client_metadata": {},
                     *             "client_read_only_metadata": {},
                     *             "has_password": true,
                     *             "otp_auth_enabled": true,
                     *             "passkey_auth_enabled": true,
                     *             "requires_totp_mfa": true,
                     *             "oauth_providers": [
                     *               {
                     *                 "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *                 "type": "example",
                     *                 "provider_user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *               }
                     *             ],
                     *             "selected_team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *             "is_anonymous": true,
                     *             "server_metadata": {},
                     *             "last_active_at_millis": 1767225600000
                     *           }
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: ({
                            team_id: string;
                            user_id: string;
                            display_name: string | null;
                            profile_image_url: string | null;
                            user: {
                                id: string;
                                display_name: string | null;
                                primary_email: string | null;
                                primary_email_verified: boolean;
                                auth_with_email: boolean;
                                profile_image_url: string | null;
                                signed_up_at_millis: number;
                                client_metadata: components["schemas"]["__schema1"] | null;
                                client_read_only_metadata: components["schemas"]["__schema2"] | null;
                                has_password: boolean;
                                otp_auth_enabled: boolean;
                                passkey_auth_enabled: boolean;
                                requires_totp_mfa: boolean;
                                oauth_providers: {
                                    id: string;
                                    type: string;
                                    provider_user_id: string;
                                }[];
                                selected_team_id: string | null;
                                is_anonymous: boolean;
                                server_metadata: components["schemas"]["__schema3"] | null;
                                last_active_at_millis: number;
                            };
                        } | {
                            team_id: string;
                            user_id: string;
                            display_name: string | null;
                            profile_image_url: string | null;
                        })[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `TEAM_MEMBERSHIP_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "teams-getMemberProfile": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                team_id: string;
                /** @example me */
                user_id: "me" | string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "display_name": "Ada Lovelace",
                     *       "profile_image_url": "https://app.example.com/handler",
                     *       "user": {
                     *         "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *         "display_name": "Ada Lovelace",
                     *         "primary_email": "ada@example.com",
                     *         "primary_email_verified": true,
                     *         "auth_with_email": true,
                     *         "profile_image_url": "https://app.example.com/handler",
                     *         "signed_up_at_millis": 1767225600000,
                     *         "client_metadata": {},
                     *         "client_read_only_metadata": {},
                     *         "has_password": true,
                     *         "otp_auth_enabled": true,
                     *         "passkey_auth_enabled": true,
                     *         "requires_totp_mfa": true,
                     *         "oauth_providers": [
                     *           {
                     *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *             "type": "example",
                     *             "provider_user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *           }
                     *         ],
                     *         "selected_team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *         "is_anonymous": true,
                     *         "server_metadata": {},
                     *         "last_active_at_millis": 1767225600000
                     *       }
                     *     }
                     */
                    "application/json": {
                        team_id: string;
                        user_id: string;
                        display_name: string | null;
                        profile_image_url: string | null;
                        user: {
                            id: string;
                            display_name: string | null;
                            primary_email: string | null;
                            primary_email_verified: boolean;
                            auth_with_email: boolean;
                            profile_image_url: string | null;
                            signed_up_at_millis: number;
                            client_metadata: components["schemas"]["__schema1"] | null;
                            client_read_only_metadata: components["schemas"]["__schema2"] | null;
                            has_password: boolean;
                            otp_auth_enabled: boolean;
                            passkey_auth_enabled: boolean;
                            requires_totp_mfa: boolean;
                            oauth_providers: {
                                id: string;
                                type: string;
                                provider_user_id: string;
                            }[];
                            selected_team_id: string | null;
                            is_anonymous: boolean;
                            server_metadata: components["schemas"]["__schema3"] | null;
                            last_active_at_millis: number;
                        };
                    } | {
                        team_id: string;
                        user_id: string;
                        display_name: string | null;
                        profile_image_url: string | null;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `TEAM_MEMBERSHIP_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "teams-updateMemberProfile": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                team_id: string;
                /** @example me */
                user_id: "me" | string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "display_name": "Ada Lovelace",
                 *       "profile_image_url": "https://app.example.com/handler"
                 *     }
                 */
                "application/json": {
                    display_name?: string | null;
                    profile_image_url?: string | null;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "display_name": "Ada Lovelace",
                     *       "profile_image_url": "https://app.example.com/handler",
                     *       "user": {
                     *         "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *         "display_name": "Ada Lovelace",
                     *         "primary_email": "ada@example.com",
                     *         "primary_email_verified": true,
                     *         "auth_with_email": true,
                     *         "profile_image_url": "https://app.example.com/handler",
                     *         "signed_up_at_millis": 1767225600000,
                     *         "client_metadata": {},
                     *         "client_read_only_metadata": {},
                     *         "has_password": true,
                     *         "otp_auth_enabled": true,
                     *         "passkey_auth_enabled": true,
                     *         "requires_totp_mfa": true,
                     *         "oauth_providers": [
                     *           {
                     *             "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *             "type": "example",
                     *             "provider_user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *           }
                     *         ],
                     *         "selected_team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *         "is_anonymous": true,
                     *         "server_metadata": {},
                     *         "last_active_at_millis": 1767225600000
                     *       }
                     *     }
                     */
                    "application/json": {
                        team_id: string;
                        user_id: string;
                        display_name: string | null;
                        profile_image_url: string | null;
                        user: {
                            id: string;
                            display_name: string | null;
                            primary_email: string | null;
                            primary_email_verified: boolean;
                            auth_with_email: boolean;
                            profile_image_url: string | null;
                            signed_up_at_millis: number;
                            client_metadata: components["schemas"]["__schema1"] | null;
                            client_read_only_metadata: components["schemas"]["__schema2"] | null;
                            has_password: boolean;
                            otp_auth_enabled: boolean;
                            passkey_auth_enabled: boolean;
                            requires_totp_mfa: boolean;
                            oauth_providers: {
                                id: string;
                                type: string;
                                provider_user_id: string;
                            }[];
                            selected_team_id: string | null;
                            is_anonymous: boolean;
                            server_metadata: components["schemas"]["__schema3"] | null;
                            last_active_at_millis: number;
                        };
                    } | {
                        team_id: string;
                        user_id: string;
                        display_name: string | null;
                        profile_image_url: string | null;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `TEAM_MEMBERSHIP_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "teams-addMember": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                team_id: string;
                /** @example me */
                user_id: "me" | string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *     }
                     */
                    "application/json": {
                        team_id: string;
                        user_id: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `TEAM_MEMBERSHIP_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "teams-removeMember": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                team_id: string;
                /** @example me */
                user_id: "me" | string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `TEAM_MEMBERSHIP_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "teams-leave": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                team_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `TEAM_MEMBERSHIP_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "permissions-listTeamDefinitions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "description": "Example",
                     *           "contained_permission_ids": [
                     *             "example"
                     *           ],
                     *           "is_system_permission": true
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            description: string | null;
                            contained_permission_ids: string[];
                            is_system_permission: boolean;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CONTAINED_PERMISSION_NOT_FOUND`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PERMISSION_ID_ALREADY_EXISTS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PERMISSION_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND`, `WRONG_PERMISSION_SCOPE` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "permissions-createTeamDefinition": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "id": "example",
                 *       "description": "Example",
                 *       "contained_permission_ids": [
                 *         "example"
                 *       ]
                 *     }
                 */
                "application/json": {
                    id: string;
                    description?: string | null;
                    contained_permission_ids?: string[];
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "description": "Example",
                     *       "contained_permission_ids": [
                     *         "example"
                     *       ],
                     *       "is_system_permission": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        description: string | null;
                        contained_permission_ids: string[];
                        is_system_permission: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CONTAINED_PERMISSION_NOT_FOUND`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PERMISSION_ID_ALREADY_EXISTS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PERMISSION_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND`, `WRONG_PERMISSION_SCOPE` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "permissions-getTeamDefinition": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example example */
                permission_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "description": "Example",
                     *       "contained_permission_ids": [
                     *         "example"
                     *       ],
                     *       "is_system_permission": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        description: string | null;
                        contained_permission_ids: string[];
                        is_system_permission: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CONTAINED_PERMISSION_NOT_FOUND`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PERMISSION_ID_ALREADY_EXISTS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PERMISSION_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND`, `WRONG_PERMISSION_SCOPE` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "permissions-deleteTeamDefinition": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example example */
                permission_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CONTAINED_PERMISSION_NOT_FOUND`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PERMISSION_ID_ALREADY_EXISTS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PERMISSION_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND`, `WRONG_PERMISSION_SCOPE` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "permissions-updateTeamDefinition": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example example */
                permission_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "id": "example",
                 *       "description": "Example",
                 *       "contained_permission_ids": [
                 *         "example"
                 *       ]
                 *     }
                 */
                "application/json": {
                    id?: string;
                    description?: string | null;
                    contained_permission_ids?: string[];
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "description": "Example",
                     *       "contained_permission_ids": [
                     *         "example"
                     *       ],
                     *       "is_system_permission": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        description: string | null;
                        contained_permission_ids: string[];
                        is_system_permission: boolean;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CONTAINED_PERMISSION_NOT_FOUND`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PERMISSION_ID_ALREADY_EXISTS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PERMISSION_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND`, `WRONG_PERMISSION_SCOPE` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "permissions-listTeamPermissions": {
        parameters: {
            query?: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                team_id?: string;
                /** @example me */
                user_id?: "me" | string;
                /** @example example */
                permission_id?: string;
                /** @example true */
                recursive?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            team_id: string;
                            user_id: string;
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CONTAINED_PERMISSION_NOT_FOUND`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PERMISSION_ID_ALREADY_EXISTS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PERMISSION_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND`, `WRONG_PERMISSION_SCOPE` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "permissions-grantTeamPermission": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                team_id: string;
                /** @example me */
                user_id: "me" | string;
                /** @example example */
                permission_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *     }
                     */
                    "application/json": {
                        id: string;
                        team_id: string;
                        user_id: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CONTAINED_PERMISSION_NOT_FOUND`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PERMISSION_ID_ALREADY_EXISTS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PERMISSION_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND`, `WRONG_PERMISSION_SCOPE` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "permissions-revokeTeamPermission": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                team_id: string;
                /** @example me */
                user_id: "me" | string;
                /** @example example */
                permission_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CONTAINED_PERMISSION_NOT_FOUND`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PERMISSION_ID_ALREADY_EXISTS`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `PERMISSION_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND`, `WRONG_PERMISSION_SCOPE` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "teams-list": {
        parameters: {
            query?: {
                /** @example me */
                user_id?: "me" | string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "display_name": "Ada Lovelace",
                     *           "profile_image_url": "https://app.example.com/handler",
                     *           "client_metadata": {},
                     *           "client_read_only_metadata": {},
                     *           "created_at_millis": 1767225600000,
                     *           "server_metadata": {}
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: ({
                            id: string;
                            display_name: string;
                            profile_image_url: string | null;
                            client_metadata: components["schemas"]["__schema4"] | null;
                            client_read_only_metadata: components["schemas"]["__schema5"] | null;
                            created_at_millis: number;
                            server_metadata: components["schemas"]["__schema6"] | null;
                        } | {
                            id: string;
                            display_name: string;
                            profile_image_url: string | null;
                            client_metadata: components["schemas"]["__schema4"] | null;
                            client_read_only_metadata: components["schemas"]["__schema5"] | null;
                            created_at_millis: number;
                        })[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `TEAM_MEMBERSHIP_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "teams-create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "display_name": "Ada Lovelace",
                 *       "profile_image_url": "https://app.example.com/handler",
                 *       "client_metadata": {},
                 *       "client_read_only_metadata": {},
                 *       "server_metadata": {},
                 *       "creator_user_id": "me"
                 *     }
                 */
                "application/json": {
                    display_name: string;
                    profile_image_url?: string | null;
                    client_metadata?: components["schemas"]["__schema0"] | null;
                    client_read_only_metadata?: components["schemas"]["__schema0"] | null;
                    server_metadata?: components["schemas"]["__schema0"] | null;
                    creator_user_id?: "me" | string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "display_name": "Ada Lovelace",
                     *       "profile_image_url": "https://app.example.com/handler",
                     *       "client_metadata": {},
                     *       "client_read_only_metadata": {},
                     *       "created_at_millis": 1767225600000,
                     *       "server_metadata": {}
                     *     }
                     */
                    "application/json": {
                        id: string;
                        display_name: string;
                        profile_image_url: string | null;
                        client_metadata: components["schemas"]["__schema4"] | null;
                        client_read_only_metadata: components["schemas"]["__schema5"] | null;
                        created_at_millis: number;
                        server_metadata: components["schemas"]["__schema6"] | null;
                    } | {
                        id: string;
                        display_name: string;
                        profile_image_url: string | null;
                        client_metadata: components["schemas"]["__schema4"] | null;
                        client_read_only_metadata: components["schemas"]["__schema5"] | null;
                        created_at_millis: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `TEAM_MEMBERSHIP_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "teams-get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                team_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "display_name": "Ada Lovelace",
                     *       "profile_image_url": "https://app.example.com/handler",
                     *       "client_metadata": {},
                     *       "client_read_only_metadata": {},
                     *       "created_at_millis": 1767225600000,
                     *       "server_metadata": {}
                     *     }
                     */
                    "application/json": {
                        id: string;
                        display_name: string;
                        profile_image_url: string | null;
                        client_metadata: components["schemas"]["__schema4"] | null;
                        client_read_only_metadata: components["schemas"]["__schema5"] | null;
                        created_at_millis: number;
                        server_metadata: components["schemas"]["__schema6"] | null;
                    } | {
                        id: string;
                        display_name: string;
                        profile_image_url: string | null;
                        client_metadata: components["schemas"]["__schema4"] | null;
                        client_read_only_metadata: components["schemas"]["__schema5"] | null;
                        created_at_millis: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `TEAM_MEMBERSHIP_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "teams-delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                team_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `TEAM_MEMBERSHIP_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "teams-update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                team_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "display_name": "Ada Lovelace",
                 *       "profile_image_url": "https://app.example.com/handler",
                 *       "client_metadata": {},
                 *       "client_read_only_metadata": {},
                 *       "server_metadata": {}
                 *     }
                 */
                "application/json": {
                    display_name?: string;
                    profile_image_url?: string | null;
                    client_metadata?: components["schemas"]["__schema0"] | null;
                    client_read_only_metadata?: components["schemas"]["__schema0"] | null;
                    server_metadata?: components["schemas"]["__schema0"] | null;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "display_name": "Ada Lovelace",
                     *       "profile_image_url": "https://app.example.com/handler",
                     *       "client_metadata": {},
                     *       "client_read_only_metadata": {},
                     *       "created_at_millis": 1767225600000,
                     *       "server_metadata": {}
                     *     }
                     */
                    "application/json": {
                        id: string;
                        display_name: string;
                        profile_image_url: string | null;
                        client_metadata: components["schemas"]["__schema4"] | null;
                        client_read_only_metadata: components["schemas"]["__schema5"] | null;
                        created_at_millis: number;
                        server_metadata: components["schemas"]["__schema6"] | null;
                    } | {
                        id: string;
                        display_name: string;
                        profile_image_url: string | null;
                        client_metadata: components["schemas"]["__schema4"] | null;
                        client_read_only_metadata: components["schemas"]["__schema5"] | null;
                        created_at_millis: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `EXPIRED`, `INVALID_ACCESS_TYPE`, `LAST_PROJECT_OWNER`, `MAX_ATTEMPTS_REACHED`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `REDIRECT_URL_NOT_WHITELISTED`, `SCHEMA_ERROR`, `VERIFICATION_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `CODE_NOT_FOUND`, `TEAM_MEMBERSHIP_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ALREADY_USED`, `TEAM_MEMBERSHIP_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "userTeamApiKeys-listUserKeys": {
        parameters: {
            query?: {
                /** @example me */
                user_id?: "me" | string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "description": "Example",
                     *           "is_public": true,
                     *           "created_at_millis": 1767225600000,
                     *           "expires_at_millis": 1767225600000,
                     *           "manually_revoked_at_millis": 1767225600000,
                     *           "type": "user",
                     *           "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "value": {
                     *             "last_four": "example"
                     *           }
                     *         }
                     *       ],
                     *       "is_paginated": false
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            description: string;
                            is_public: boolean;
                            created_at_millis: number;
                            expires_at_millis: number | null;
                            manually_revoked_at_millis: number | null;
                            /** @constant */
                            type: "user";
                            user_id: string;
                            value: {
                                last_four: string;
                            };
                        }[];
                        /** @constant */
                        is_paginated: false;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `API_KEYS_NOT_ENABLED`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `PUBLIC_API_KEY_CANNOT_BE_REVOKED`, `SCHEMA_ERROR`, `WRONG_API_KEY_TYPE` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `API_KEY_EXPIRED`, `API_KEY_REVOKED`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `API_KEY_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "userTeamApiKeys-createUserKey": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "user_id": "me",
                 *       "description": "Example",
                 *       "expires_at_millis": 1767225600000,
                 *       "is_public": true
                 *     }
                 */
                "application/json": {
                    user_id?: "me" | string;
                    description: string;
                    expires_at_millis?: number | null;
                    is_public?: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "description": "Example",
                     *       "is_public": true,
                     *       "created_at_millis": 1767225600000,
                     *       "expires_at_millis": 1767225600000,
                     *       "manually_revoked_at_millis": 1767225600000,
                     *       "type": "user",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "value": "example"
                     *     }
                     */
                    "application/json": {
                        id: string;
                        description: string;
                        is_public: boolean;
                        created_at_millis: number;
                        expires_at_millis: number | null;
                        manually_revoked_at_millis: number | null;
                        /** @constant */
                        type: "user";
                        user_id: string;
                        value: string;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `API_KEYS_NOT_ENABLED`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `PUBLIC_API_KEY_CANNOT_BE_REVOKED`, `SCHEMA_ERROR`, `WRONG_API_KEY_TYPE` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `API_KEY_EXPIRED`, `API_KEY_REVOKED`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `API_KEY_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "userTeamApiKeys-getUserKey": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                api_key_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "description": "Example",
                     *       "is_public": true,
                     *       "created_at_millis": 1767225600000,
                     *       "expires_at_millis": 1767225600000,
                     *       "manually_revoked_at_millis": 1767225600000,
                     *       "type": "user",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "value": {
                     *         "last_four": "example"
                     *       }
                     *     }
                     */
                    "application/json": {
                        id: string;
                        description: string;
                        is_public: boolean;
                        created_at_millis: number;
                        expires_at_millis: number | null;
                        manually_revoked_at_millis: number | null;
                        /** @constant */
                        type: "user";
                        user_id: string;
                        value: {
                            last_four: string;
                        };
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `API_KEYS_NOT_ENABLED`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `PUBLIC_API_KEY_CANNOT_BE_REVOKED`, `SCHEMA_ERROR`, `WRONG_API_KEY_TYPE` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `API_KEY_EXPIRED`, `API_KEY_REVOKED`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `API_KEY_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "userTeamApiKeys-updateUserKey": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                api_key_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "description": "Example",
                 *       "expires_at_millis": 1767225600000,
                 *       "revoked": true
                 *     }
                 */
                "application/json": {
                    description?: string;
                    expires_at_millis?: number | null;
                    revoked?: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "description": "Example",
                     *       "is_public": true,
                     *       "created_at_millis": 1767225600000,
                     *       "expires_at_millis": 1767225600000,
                     *       "manually_revoked_at_millis": 1767225600000,
                     *       "type": "user",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "value": {
                     *         "last_four": "example"
                     *       }
                     *     }
                     */
                    "application/json": {
                        id: string;
                        description: string;
                        is_public: boolean;
                        created_at_millis: number;
                        expires_at_millis: number | null;
                        manually_revoked_at_millis: number | null;
                        /** @constant */
                        type: "user";
                        user_id: string;
                        value: {
                            last_four: string;
                        };
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `API_KEYS_NOT_ENABLED`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `PUBLIC_API_KEY_CANNOT_BE_REVOKED`, `SCHEMA_ERROR`, `WRONG_API_KEY_TYPE` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `API_KEY_EXPIRED`, `API_KEY_REVOKED`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `API_KEY_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "userTeamApiKeys-checkUserKey": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "api_key": "example"
                 *     }
                 */
                "application/json": {
                    api_key: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "description": "Example",
                     *       "is_public": true,
                     *       "created_at_millis": 1767225600000,
                     *       "expires_at_millis": 1767225600000,
                     *       "manually_revoked_at_millis": 1767225600000,
                     *       "type": "user",
                     *       "user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "value": {
                     *         "last_four": "example"
                     *       }
                     *     }
                     */
                    "application/json": {
                        id: string;
                        description: string;
                        is_public: boolean;
                        created_at_millis: number;
                        expires_at_millis: number | null;
                        manually_revoked_at_millis: number | null;
                        /** @constant */
                        type: "user";
                        user_id: string;
                        value: {
                            last_four: string;
                        };
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `API_KEYS_NOT_ENABLED`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `PUBLIC_API_KEY_CANNOT_BE_REVOKED`, `SCHEMA_ERROR`, `WRONG_API_KEY_TYPE` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `API_KEY_EXPIRED`, `API_KEY_REVOKED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `TEAM_PERMISSION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `API_KEY_NOT_FOUND`, `TEAM_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `QUOTA_EXCEEDED` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "users-list": {
        parameters: {
            query?: {
                /** @example example */
                cursor?: string;
                /** @example 1 */
                limit?: number;
                /** @example true */
                desc?: boolean;
                /** @example signed_up_at */
                order_by?: "signed_up_at";
                /** @example example */
                query?: string;
                /** @example true */
                include_anonymous?: boolean;
                /** @example 3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c */
                team_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "items": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "display_name": "Ada Lovelace",
                     *           "primary_email": "ada@example.com",
                     *           "primary_email_verified": true,
                     *           "auth_with_email": true,
                     *           "profile_image_url": "https://app.example.com/handler",
                     *           "signed_up_at_millis": 1767225600000,
                     *           "client_metadata": {},
                     *           "client_read_only_metadata": {},
                     *           "has_password": true,
                     *           "otp_auth_enabled": true,
                     *           "passkey_auth_enabled": true,
                     *           "requires_totp_mfa": true,
                     *           "oauth_providers": [
                     *             {
                     *               "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *               "type": "example",
                     *               "provider_user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *             }
                     *           ],
                     *           "selected_team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "is_anonymous": true,
                     *           "server_metadata": {},
                     *           "last_active_at_millis": 1767225600000
                     *         }
                     *       ],
                     *       "is_paginated": true,
                     *       "pagination": {
                     *         "next_cursor": "example"
                     *       }
                     *     }
                     */
                    "application/json": {
                        items: {
                            id: string;
                            display_name: string | null;
                            primary_email: string | null;
                            primary_email_verified: boolean;
                            auth_with_email: boolean;
                            profile_image_url: string | null;
                            signed_up_at_millis: number;
                            client_metadata: components["schemas"]["__schema1"] | null;
                            client_read_only_metadata: components["schemas"]["__schema2"] | null;
                            has_password: boolean;
                            otp_auth_enabled: boolean;
                            passkey_auth_enabled: boolean;
                            requires_totp_mfa: boolean;
                            oauth_providers: {
                                id: string;
                                type: string;
                                provider_user_id: string;
                            }[];
                            selected_team_id: string | null;
                            is_anonymous: boolean;
                            server_metadata: components["schemas"]["__schema3"] | null;
                            last_active_at_millis: number;
                        }[];
                        /** @constant */
                        is_paginated: true;
                        pagination: {
                            next_cursor: string | null;
                        };
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PASSWORD_REQUIREMENTS_NOT_MET`, `PASSWORD_TOO_LONG`, `PASSWORD_TOO_SHORT`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RECENT_SIGN_IN_REQUIRED` */
            403: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `TEAM_MEMBERSHIP_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `QUOTA_EXCEEDED`, `USER_EMAIL_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "users-create": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "display_name": "Ada Lovelace",
                 *       "client_metadata": {},
                 *       "selected_team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "totp_secret_base64": "examplexxxxxxxxx",
                 *       "profile_image_url": "https://app.example.com/handler",
                 *       "otp_auth_enabled": true,
                 *       "passkey_auth_enabled": true,
                 *       "client_read_only_metadata": {},
                 *       "server_metadata": {},
                 *       "primary_email": "ada@example.com",
                 *       "primary_email_verified": true,
                 *       "primary_email_auth_enabled": true,
                 *       "password": "correct-horse-battery-staple",
                 *       "password_hash": "example",
                 *       "is_anonymous": true
                 *     }
                 */
                "application/json": {
                    display_name?: string | null;
                    client_metadata?: components["schemas"]["__schema0"] | null;
                    selected_team_id?: string | null;
                    totp_secret_base64?: string | null;
                    profile_image_url?: string | null;
                    otp_auth_enabled?: boolean;
                    passkey_auth_enabled?: boolean;
                    client_read_only_metadata?: components["schemas"]["__schema0"] | null;
                    server_metadata?: components["schemas"]["__schema0"] | null;
                    primary_email?: string | null;
                    primary_email_verified?: boolean;
                    primary_email_auth_enabled?: boolean;
                    password?: string | null;
                    password_hash?: string;
                    is_anonymous?: boolean;
                };
            };
        };
        responses: {
            /** @description Successful response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "display_name": "Ada Lovelace",
                     *       "primary_email": "ada@example.com",
                     *       "primary_email_verified": true,
                     *       "auth_with_email": true,
                     *       "profile_image_url": "https://app.example.com/handler",
                     *       "signed_up_at_millis": 1767225600000,
                     *       "client_metadata": {},
                     *       "client_read_only_metadata": {},
                     *       "has_password": true,
                     *       "otp_auth_enabled": true,
                     *       "passkey_auth_enabled": true,
                     *       "requires_totp_mfa": true,
                     *       "oauth_providers": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "type": "example",
                     *           "provider_user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *         }
                     *       ],
                     *       "selected_team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "is_anonymous": true,
                     *       "server_metadata": {},
                     *       "last_active_at_millis": 1767225600000
                     *     }
                     */
                    "application/json": {
                        id: string;
                        display_name: string | null;
                        primary_email: string | null;
                        primary_email_verified: boolean;
                        auth_with_email: boolean;
                        profile_image_url: string | null;
                        signed_up_at_millis: number;
                        client_metadata: components["schemas"]["__schema1"] | null;
                        client_read_only_metadata: components["schemas"]["__schema2"] | null;
                        has_password: boolean;
                        otp_auth_enabled: boolean;
                        passkey_auth_enabled: boolean;
                        requires_totp_mfa: boolean;
                        oauth_providers: {
                            id: string;
                            type: string;
                            provider_user_id: string;
                        }[];
                        selected_team_id: string | null;
                        is_anonymous: boolean;
                        server_metadata: components["schemas"]["__schema3"] | null;
                        last_active_at_millis: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PASSWORD_REQUIREMENTS_NOT_MET`, `PASSWORD_TOO_LONG`, `PASSWORD_TOO_SHORT`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RECENT_SIGN_IN_REQUIRED` */
            403: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `TEAM_MEMBERSHIP_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `QUOTA_EXCEEDED`, `USER_EMAIL_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "users-get": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example me */
                user_id: "me" | string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "display_name": "Ada Lovelace",
                     *       "primary_email": "ada@example.com",
                     *       "primary_email_verified": true,
                     *       "auth_with_email": true,
                     *       "profile_image_url": "https://app.example.com/handler",
                     *       "signed_up_at_millis": 1767225600000,
                     *       "client_metadata": {},
                     *       "client_read_only_metadata": {},
                     *       "has_password": true,
                     *       "otp_auth_enabled": true,
                     *       "passkey_auth_enabled": true,
                     *       "requires_totp_mfa": true,
                     *       "oauth_providers": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "type": "example",
                     *           "provider_user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *         }
                     *       ],
                     *       "selected_team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "is_anonymous": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        display_name: string | null;
                        primary_email: string | null;
                        primary_email_verified: boolean;
                        auth_with_email: boolean;
                        profile_image_url: string | null;
                        signed_up_at_millis: number;
                        client_metadata: components["schemas"]["__schema1"] | null;
                        client_read_only_metadata: components["schemas"]["__schema2"] | null;
                        has_password: boolean;
                        otp_auth_enabled: boolean;
                        passkey_auth_enabled: boolean;
                        requires_totp_mfa: boolean;
                        oauth_providers: {
                            id: string;
                            type: string;
                            provider_user_id: string;
                        }[];
                        selected_team_id: string | null;
                        is_anonymous: boolean;
                    } | {
                        id: string;
                        display_name: string | null;
                        primary_email: string | null;
                        primary_email_verified: boolean;
                        auth_with_email: boolean;
                        profile_image_url: string | null;
                        signed_up_at_millis: number;
                        client_metadata: components["schemas"]["__schema1"] | null;
                        client_read_only_metadata: components["schemas"]["__schema2"] | null;
                        has_password: boolean;
                        otp_auth_enabled: boolean;
                        passkey_auth_enabled: boolean;
                        requires_totp_mfa: boolean;
                        oauth_providers: {
                            id: string;
                            type: string;
                            provider_user_id: string;
                        }[];
                        selected_team_id: string | null;
                        is_anonymous: boolean;
                        server_metadata: components["schemas"]["__schema3"] | null;
                        last_active_at_millis: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PASSWORD_REQUIREMENTS_NOT_MET`, `PASSWORD_TOO_LONG`, `PASSWORD_TOO_SHORT`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RECENT_SIGN_IN_REQUIRED` */
            403: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `TEAM_MEMBERSHIP_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `QUOTA_EXCEEDED`, `USER_EMAIL_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "users-delete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example me */
                user_id: "me" | string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PASSWORD_REQUIREMENTS_NOT_MET`, `PASSWORD_TOO_LONG`, `PASSWORD_TOO_SHORT`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RECENT_SIGN_IN_REQUIRED` */
            403: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `TEAM_MEMBERSHIP_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `QUOTA_EXCEEDED`, `USER_EMAIL_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "users-update": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example me */
                user_id: "me" | string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "display_name": "Ada Lovelace",
                 *       "client_metadata": {},
                 *       "selected_team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "totp_secret_base64": "examplexxxxxxxxx",
                 *       "profile_image_url": "https://app.example.com/handler",
                 *       "otp_auth_enabled": true,
                 *       "passkey_auth_enabled": true,
                 *       "client_read_only_metadata": {},
                 *       "server_metadata": {},
                 *       "primary_email": "ada@example.com",
                 *       "primary_email_verified": true,
                 *       "primary_email_auth_enabled": true,
                 *       "password": "correct-horse-battery-staple",
                 *       "password_hash": "example"
                 *     }
                 */
                "application/json": {
                    display_name?: string | null;
                    client_metadata?: components["schemas"]["__schema0"] | null;
                    selected_team_id?: string | null;
                    totp_secret_base64?: string | null;
                    profile_image_url?: string | null;
                    otp_auth_enabled?: boolean;
                    passkey_auth_enabled?: boolean;
                    client_read_only_metadata?: components["schemas"]["__schema0"] | null;
                    server_metadata?: components["schemas"]["__schema0"] | null;
                    primary_email?: string | null;
                    primary_email_verified?: boolean;
                    primary_email_auth_enabled?: boolean;
                    password?: string | null;
                    password_hash?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "display_name": "Ada Lovelace",
                     *       "primary_email": "ada@example.com",
                     *       "primary_email_verified": true,
                     *       "auth_with_email": true,
                     *       "profile_image_url": "https://app.example.com/handler",
                     *       "signed_up_at_millis": 1767225600000,
                     *       "client_metadata": {},
                     *       "client_read_only_metadata": {},
                     *       "has_password": true,
                     *       "otp_auth_enabled": true,
                     *       "passkey_auth_enabled": true,
                     *       "requires_totp_mfa": true,
                     *       "oauth_providers": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "type": "example",
                     *           "provider_user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *         }
                     *       ],
                     *       "selected_team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "is_anonymous": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        display_name: string | null;
                        primary_email: string | null;
                        primary_email_verified: boolean;
                        auth_with_email: boolean;
                        profile_image_url: string | null;
                        signed_up_at_millis: number;
                        client_metadata: components["schemas"]["__schema1"] | null;
                        client_read_only_metadata: components["schemas"]["__schema2"] | null;
                        has_password: boolean;
                        otp_auth_enabled: boolean;
                        passkey_auth_enabled: boolean;
                        requires_totp_mfa: boolean;
                        oauth_providers: {
                            id: string;
                            type: string;
                            provider_user_id: string;
                        }[];
                        selected_team_id: string | null;
                        is_anonymous: boolean;
                    } | {
                        id: string;
                        display_name: string | null;
                        primary_email: string | null;
                        primary_email_verified: boolean;
                        auth_with_email: boolean;
                        profile_image_url: string | null;
                        signed_up_at_millis: number;
                        client_metadata: components["schemas"]["__schema1"] | null;
                        client_read_only_metadata: components["schemas"]["__schema2"] | null;
                        has_password: boolean;
                        otp_auth_enabled: boolean;
                        passkey_auth_enabled: boolean;
                        requires_totp_mfa: boolean;
                        oauth_providers: {
                            id: string;
                            type: string;
                            provider_user_id: string;
                        }[];
                        selected_team_id: string | null;
                        is_anonymous: boolean;
                        server_metadata: components["schemas"]["__schema3"] | null;
                        last_active_at_millis: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PASSWORD_REQUIREMENTS_NOT_MET`, `PASSWORD_TOO_LONG`, `PASSWORD_TOO_SHORT`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RECENT_SIGN_IN_REQUIRED` */
            403: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `TEAM_MEMBERSHIP_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `QUOTA_EXCEEDED`, `USER_EMAIL_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "mfa-status": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example me */
                user_id: "me" | string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "requires_totp_mfa": true,
                     *       "totp_enrollment_pending": true,
                     *       "recovery_codes_total": 1,
                     *       "recovery_codes_remaining": 1,
                     *       "last_recovery_code_used_at_millis": 1767225600000
                     *     }
                     */
                    "application/json": {
                        requires_totp_mfa: boolean;
                        totp_enrollment_pending: boolean;
                        recovery_codes_total: number;
                        recovery_codes_remaining: number;
                        last_recovery_code_used_at_millis: number | null;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `INVALID_TOTP_CODE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `TOTP_ENROLLMENT_NOT_STARTED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RECENT_SIGN_IN_REQUIRED` */
            403: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "mfa-disableTotp": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @example me */
                user_id: "me" | string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "totp": "example",
                 *       "recovery_code": "example"
                 *     }
                 */
                "application/json": {
                    totp?: string;
                    recovery_code?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `INVALID_TOTP_CODE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `TOTP_ENROLLMENT_NOT_STARTED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RECENT_SIGN_IN_REQUIRED` */
            403: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "users-getMe": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "display_name": "Ada Lovelace",
                     *       "primary_email": "ada@example.com",
                     *       "primary_email_verified": true,
                     *       "auth_with_email": true,
                     *       "profile_image_url": "https://app.example.com/handler",
                     *       "signed_up_at_millis": 1767225600000,
                     *       "client_metadata": {},
                     *       "client_read_only_metadata": {},
                     *       "has_password": true,
                     *       "otp_auth_enabled": true,
                     *       "passkey_auth_enabled": true,
                     *       "requires_totp_mfa": true,
                     *       "oauth_providers": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "type": "example",
                     *           "provider_user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *         }
                     *       ],
                     *       "selected_team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "is_anonymous": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        display_name: string | null;
                        primary_email: string | null;
                        primary_email_verified: boolean;
                        auth_with_email: boolean;
                        profile_image_url: string | null;
                        signed_up_at_millis: number;
                        client_metadata: components["schemas"]["__schema1"] | null;
                        client_read_only_metadata: components["schemas"]["__schema2"] | null;
                        has_password: boolean;
                        otp_auth_enabled: boolean;
                        passkey_auth_enabled: boolean;
                        requires_totp_mfa: boolean;
                        oauth_providers: {
                            id: string;
                            type: string;
                            provider_user_id: string;
                        }[];
                        selected_team_id: string | null;
                        is_anonymous: boolean;
                    } | {
                        id: string;
                        display_name: string | null;
                        primary_email: string | null;
                        primary_email_verified: boolean;
                        auth_with_email: boolean;
                        profile_image_url: string | null;
                        signed_up_at_millis: number;
                        client_metadata: components["schemas"]["__schema1"] | null;
                        client_read_only_metadata: components["schemas"]["__schema2"] | null;
                        has_password: boolean;
                        otp_auth_enabled: boolean;
                        passkey_auth_enabled: boolean;
                        requires_totp_mfa: boolean;
                        oauth_providers: {
                            id: string;
                            type: string;
                            provider_user_id: string;
                        }[];
                        selected_team_id: string | null;
                        is_anonymous: boolean;
                        server_metadata: components["schemas"]["__schema3"] | null;
                        last_active_at_millis: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PASSWORD_REQUIREMENTS_NOT_MET`, `PASSWORD_TOO_LONG`, `PASSWORD_TOO_SHORT`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RECENT_SIGN_IN_REQUIRED` */
            403: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `TEAM_MEMBERSHIP_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `QUOTA_EXCEEDED`, `USER_EMAIL_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "users-deleteMe": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "success": true
                     *     }
                     */
                    "application/json": {
                        /** @constant */
                        success: true;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PASSWORD_REQUIREMENTS_NOT_MET`, `PASSWORD_TOO_LONG`, `PASSWORD_TOO_SHORT`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RECENT_SIGN_IN_REQUIRED` */
            403: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `TEAM_MEMBERSHIP_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `QUOTA_EXCEEDED`, `USER_EMAIL_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "users-updateMe": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "display_name": "Ada Lovelace",
                 *       "client_metadata": {},
                 *       "selected_team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                 *       "totp_secret_base64": "examplexxxxxxxxx",
                 *       "profile_image_url": "https://app.example.com/handler",
                 *       "otp_auth_enabled": true,
                 *       "passkey_auth_enabled": true,
                 *       "client_read_only_metadata": {},
                 *       "server_metadata": {},
                 *       "primary_email": "ada@example.com",
                 *       "primary_email_verified": true,
                 *       "primary_email_auth_enabled": true,
                 *       "password": "correct-horse-battery-staple",
                 *       "password_hash": "example"
                 *     }
                 */
                "application/json": {
                    display_name?: string | null;
                    client_metadata?: components["schemas"]["__schema0"] | null;
                    selected_team_id?: string | null;
                    totp_secret_base64?: string | null;
                    profile_image_url?: string | null;
                    otp_auth_enabled?: boolean;
                    passkey_auth_enabled?: boolean;
                    client_read_only_metadata?: components["schemas"]["__schema0"] | null;
                    server_metadata?: components["schemas"]["__schema0"] | null;
                    primary_email?: string | null;
                    primary_email_verified?: boolean;
                    primary_email_auth_enabled?: boolean;
                    password?: string | null;
                    password_hash?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "display_name": "Ada Lovelace",
                     *       "primary_email": "ada@example.com",
                     *       "primary_email_verified": true,
                     *       "auth_with_email": true,
                     *       "profile_image_url": "https://app.example.com/handler",
                     *       "signed_up_at_millis": 1767225600000,
                     *       "client_metadata": {},
                     *       "client_read_only_metadata": {},
                     *       "has_password": true,
                     *       "otp_auth_enabled": true,
                     *       "passkey_auth_enabled": true,
                     *       "requires_totp_mfa": true,
                     *       "oauth_providers": [
                     *         {
                     *           "id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *           "type": "example",
                     *           "provider_user_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c"
                     *         }
                     *       ],
                     *       "selected_team_id": "3f0c5a8e-2b1d-4c6e-9a7f-1d2e3f4a5b6c",
                     *       "is_anonymous": true
                     *     }
                     */
                    "application/json": {
                        id: string;
                        display_name: string | null;
                        primary_email: string | null;
                        primary_email_verified: boolean;
                        auth_with_email: boolean;
                        profile_image_url: string | null;
                        signed_up_at_millis: number;
                        client_metadata: components["schemas"]["__schema1"] | null;
                        client_read_only_metadata: components["schemas"]["__schema2"] | null;
                        has_password: boolean;
                        otp_auth_enabled: boolean;
                        passkey_auth_enabled: boolean;
                        requires_totp_mfa: boolean;
                        oauth_providers: {
                            id: string;
                            type: string;
                            provider_user_id: string;
                        }[];
                        selected_team_id: string | null;
                        is_anonymous: boolean;
                    } | {
                        id: string;
                        display_name: string | null;
                        primary_email: string | null;
                        primary_email_verified: boolean;
                        auth_with_email: boolean;
                        profile_image_url: string | null;
                        signed_up_at_millis: number;
                        client_metadata: components["schemas"]["__schema1"] | null;
                        client_read_only_metadata: components["schemas"]["__schema2"] | null;
                        has_password: boolean;
                        otp_auth_enabled: boolean;
                        passkey_auth_enabled: boolean;
                        requires_totp_mfa: boolean;
                        oauth_providers: {
                            id: string;
                            type: string;
                            provider_user_id: string;
                        }[];
                        selected_team_id: string | null;
                        is_anonymous: boolean;
                        server_metadata: components["schemas"]["__schema3"] | null;
                        last_active_at_millis: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PASSWORD_REQUIREMENTS_NOT_MET`, `PASSWORD_TOO_LONG`, `PASSWORD_TOO_SHORT`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RECENT_SIGN_IN_REQUIRED` */
            403: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `TEAM_MEMBERSHIP_NOT_FOUND`, `USER_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `QUOTA_EXCEEDED`, `USER_EMAIL_ALREADY_EXISTS` */
            409: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RATE_LIMITED` */
            429: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "mfa-regenerateRecoveryCodes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "totp": "example",
                 *       "recovery_code": "example"
                 *     }
                 */
                "application/json": {
                    totp?: string;
                    recovery_code?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "recovery_codes": [
                     *         "example"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        recovery_codes: string[];
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `INVALID_TOTP_CODE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `TOTP_ENROLLMENT_NOT_STARTED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RECENT_SIGN_IN_REQUIRED` */
            403: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "mfa-confirmTotpEnrollment": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "totp": "example"
                 *     }
                 */
                "application/json": {
                    totp: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "recovery_codes": [
                     *         "example"
                     *       ]
                     *     }
                     */
                    "application/json": {
                        recovery_codes: string[];
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `INVALID_TOTP_CODE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `TOTP_ENROLLMENT_NOT_STARTED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RECENT_SIGN_IN_REQUIRED` */
            403: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "mfa-startTotpEnrollment": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "totp": "example",
                 *       "recovery_code": "example"
                 *     }
                 */
                "application/json": {
                    totp?: string;
                    recovery_code?: string;
                };
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "secret_base32": "example",
                     *       "otpauth_uri": "example",
                     *       "expires_at_millis": 1767225600000
                     *     }
                     */
                    "application/json": {
                        secret_base32: string;
                        otpauth_uri: string;
                        expires_at_millis: number;
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CANNOT_GET_OWN_USER_WITHOUT_USER`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `INVALID_TOTP_CODE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `TOTP_ENROLLMENT_NOT_STARTED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_PUBLISHABLE_CLIENT_KEY`, `INVALID_SECRET_SERVER_KEY`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN`, `USER_AUTHENTICATION_REQUIRED` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `RECENT_SIGN_IN_REQUIRED` */
            403: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhooks-serviceToken": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                /** @example {} */
                "application/json": Record<string, never>;
            };
        };
        responses: {
            /** @description Successful response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "token": "example",
                     *       "expires_at_millis": 1767225600000,
                     *       "scope": "/internal/webhooks/*"
                     *     }
                     */
                    "application/json": {
                        token: string;
                        expires_at_millis: number;
                        /** @constant */
                        scope: "/internal/webhooks/*";
                    };
                };
            };
            /** @description `ACCESS_TYPE_REQUIRED`, `ACCESS_TYPE_WITHOUT_PROJECT_ID`, `BODY_PARSING_ERROR`, `BRANCH_DOES_NOT_EXIST`, `CURRENT_PROJECT_NOT_FOUND`, `INVALID_ACCESS_TYPE`, `PROJECT_KEY_WITHOUT_ACCESS_TYPE`, `SCHEMA_ERROR`, `WEBHOOK_URL_NOT_ALLOWED` */
            400: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_EXPIRED`, `ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN`, `ADMIN_AUTHENTICATION_REQUIRED`, `INSUFFICIENT_ACCESS_TYPE`, `INVALID_ADMIN_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ACCESS_TOKEN`, `INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN`, `INVALID_SUPER_SECRET_ADMIN_KEY`, `UNPARSABLE_ACCESS_TOKEN`, `UNPARSABLE_ADMIN_ACCESS_TOKEN` */
            401: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description `WEBHOOK_DELIVERY_NOT_FOUND`, `WEBHOOK_ENDPOINT_NOT_FOUND` */
            404: {
                headers: {
                    "x-latch-known-error": components["headers"]["KnownError"];
                    "x-stack-known-error": components["headers"]["StackKnownError"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Any other error, with the same body */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
