/** Users: accounts, passwords, e-mail addresses and contact channels, which sign-in methods a project enables (spec section 8, "Users"). */
import { defineFixedError, defineKnownError, defineMessageError } from './known-error.js';

export const userErrors = {
  UserWithEmailAlreadyExists: defineKnownError('USER_EMAIL_ALREADY_EXISTS', 409, (email: string, wouldWorkIfEmailWasVerified: boolean = false) => ({
    message:
      `A user with the e-mail ${JSON.stringify(email)} already exists` +
      (wouldWorkIfEmailWasVerified
        ? ', but the e-mail is not verified. Sign in to the existing account with the method used to sign up, verify the e-mail, and then this sign-in method will work.'
        : '.'),
    details: { email, would_work_if_email_was_verified: wouldWorkIfEmailWasVerified },
  })),

  EmailNotVerified: defineFixedError(
    'EMAIL_NOT_VERIFIED',
    400,
    "The e-mail is not verified. Verify it first (a verification e-mail can be sent from the user's contact channels).",
  ),

  UserIdDoesNotExist: defineKnownError('USER_ID_DOES_NOT_EXIST', 400, (userId: string) => ({
    message: `The user with the ID ${userId} does not exist in this project.`,
    details: { user_id: userId },
  })),

  UserNotFound: defineFixedError('USER_NOT_FOUND', 404, 'User not found.'),

  EmailPasswordMismatch: defineFixedError('EMAIL_PASSWORD_MISMATCH', 400, 'Wrong e-mail or password.'),

  /** Parent of the password-strength errors below (group `PasswordRequirementsNotMet`). */
  PasswordRequirementsNotMet: defineMessageError('PASSWORD_REQUIREMENTS_NOT_MET', 400, 'The password does not meet the requirements.'),

  PasswordTooShort: defineKnownError('PASSWORD_TOO_SHORT', 400, (minLength: number) => ({
    message: `Password too short. Minimum length is ${minLength}.`,
    details: { min_length: minLength },
  })),

  PasswordTooLong: defineKnownError('PASSWORD_TOO_LONG', 400, (maxLength: number) => ({
    message: `Password too long. Maximum length is ${maxLength}.`,
    details: { max_length: maxLength },
  })),

  UserDoesNotHavePassword: defineFixedError(
    'USER_DOES_NOT_HAVE_PASSWORD',
    400,
    'This user does not have a password. Set one first (POST /api/v1/auth/password/set) or sign in with another method.',
  ),

  UserAlreadyHasPassword: defineFixedError(
    'USER_ALREADY_HAS_PASSWORD',
    400,
    'This user already has a password. Change it with POST /api/v1/auth/password/update (old_password, new_password).',
  ),

  PasswordConfirmationMismatch: defineFixedError('PASSWORD_CONFIRMATION_MISMATCH', 400, 'Passwords do not match.'),

  EmailAlreadyVerified: defineFixedError('EMAIL_ALREADY_VERIFIED', 409, 'The e-mail is already verified.'),

  EmailNotAssociatedWithUser: defineFixedError('EMAIL_NOT_ASSOCIATED_WITH_USER', 400, 'The e-mail is not associated with a user who can sign in with it.'),

  EmailIsNotPrimaryEmail: defineKnownError('EMAIL_IS_NOT_PRIMARY_EMAIL', 400, (email: string, primaryEmail: string) => ({
    message: `The given e-mail (${email}) must equal the user's primary e-mail (${primaryEmail}).`,
    details: { email, primary_email: primaryEmail },
  })),

  ContactChannelNotFound: defineKnownError('CONTACT_CHANNEL_NOT_FOUND', 404, (contactChannelId: string) => ({
    message: `The contact channel ${contactChannelId} does not exist, or does not belong to this user.`,
    details: { contact_channel_id: contactChannelId },
  })),

  /** The same user already has a contact channel with this value (case-insensitive). */
  ContactChannelAlreadyExists: defineKnownError('CONTACT_CHANNEL_ALREADY_EXISTS', 409, (type: string, value: string) => ({
    message: `This user already has the ${type} contact channel ${JSON.stringify(value)}. Update that one instead.`,
    details: { type, contact_channel_value: value },
  })),

  SignUpNotEnabled: defineFixedError(
    'SIGN_UP_NOT_ENABLED',
    400,
    'Creating new accounts is not enabled for this project. Ask the project owner to enable sign-up.',
  ),

  PasswordAuthenticationNotEnabled: defineFixedError(
    'PASSWORD_AUTHENTICATION_NOT_ENABLED',
    400,
    'Password authentication is not enabled for this project. Enable it in the project settings.',
  ),

  MagicLinkAuthenticationNotEnabled: defineFixedError(
    'MAGIC_LINK_AUTHENTICATION_NOT_ENABLED',
    400,
    'Magic link and one-time code sign-in is not enabled for this project. Enable it in the project settings (magic_link_enabled).',
  ),

  /**
   * Latch addition: the user turned magic-link / one-time-code sign-in off for their account
   * (otp_auth_enabled false) after proving the address (server/domains/auth/magic-link.ts).
   */
  OtpAuthenticationNotEnabledForUser: defineFixedError(
    'OTP_AUTHENTICATION_NOT_ENABLED_FOR_USER',
    400,
    'Magic link and one-time code sign-in is turned off for this account (otp_auth_enabled). Sign in another way, then turn it on in the account settings.',
  ),

  PasskeyAuthenticationNotEnabled: defineFixedError(
    'PASSKEY_AUTHENTICATION_NOT_ENABLED',
    400,
    'Passkey authentication is not enabled for this project. Enable it in the project settings.',
  ),

  AnonymousAccountsNotEnabled: defineFixedError(
    'ANONYMOUS_ACCOUNTS_NOT_ENABLED',
    400,
    'Anonymous accounts are not enabled for this project. Enable them in the project settings.',
  ),

  AnonymousAuthenticationNotAllowed: defineFixedError(
    'ANONYMOUS_AUTHENTICATION_NOT_ALLOWED',
    401,
    'The x-latch-access-token header holds the token of an anonymous user, but this request does not accept anonymous users. ' +
      "Set the x-latch-allow-anonymous-user header to 'true' to allow them.",
  ),

  RedirectUrlNotWhitelisted: defineKnownError('REDIRECT_URL_NOT_WHITELISTED', 400, (url?: string) => ({
    message:
      (url ? `The redirect URL ${JSON.stringify(url)} is not trusted.` : 'The redirect URL is not trusted.') +
      " Add its domain to the project's trusted domains (or allow localhost for development).",
    details: { url: url ?? null },
  })),

  CannotGetOwnUserWithoutUser: defineFixedError(
    'CANNOT_GET_OWN_USER_WITHOUT_USER',
    400,
    "You specified 'me' as a user ID, but the request carries no signed-in user. Send an access token in x-latch-access-token, or use an explicit user ID.",
  ),
} as const;
