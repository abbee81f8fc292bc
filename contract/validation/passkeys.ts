/**
 * Passkey constants shared by the server, the SDK and the UI kit. No imports (no zod): the SDK's
 * browser bundle takes them without the schema library.
 */

/**
 * The relying-party ID the server puts in every options_json (spec section 5, "Passkey
 * registration"). The server never guesses the site from the request's Host: the client checks
 * that the ID is exactly this sentinel and replaces it with its own hostname; the server then
 * accepts the ceremony only if the browser-signed origin is one of the project's trusted domains
 * (or localhost where the project allows it), and binds the credential to that origin's host.
 */
export const PASSKEY_RP_ID_PLACEHOLDER = 'THIS_VALUE_WILL_BE_REPLACED.example.com';

/** User handle length (spec section 9, "User ID length (passkey)"). */
export const PASSKEY_USER_ID_MIN_LENGTH = 1;
export const PASSKEY_USER_ID_MAX_LENGTH = 64;
/** A passkey's name (shown in account settings): at most this many characters. */
export const PASSKEY_NAME_MAX_LENGTH = 64;
