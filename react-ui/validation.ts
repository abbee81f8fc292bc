/**
 * Field validation of the forms, with the spec's messages (section 5) and limits (section 9).
 * The server checks everything again; these checks only spare a round trip and say what is wrong
 * next to the field. Kept free of zod so the UI bundle stays small; the email rule is the
 * server's own function (contract/validation/email.ts, which imports nothing).
 */

import { EMAIL_MAX_LENGTH, isValidEmail } from '../contract/validation/email.js';

export { EMAIL_MAX_LENGTH, isValidEmail };
export const PASSWORD_MAX_LENGTH = 70;
export const DISPLAY_NAME_MAX_LENGTH = 256;
/** Profile images: under 100 KB and square (spec section 9). */
export const PROFILE_IMAGE_MAX_BYTES = 100 * 1024;

export const MESSAGES = {
  emailRequired: 'Please enter your email address.',
  emailInvalid: 'Please enter a valid email address.',
  emailTooLong: `Email must be at most ${EMAIL_MAX_LENGTH} characters.`,
  passwordRequired: 'Please enter your password.',
  passwordTooLong: `Password too long. Maximum length is ${PASSWORD_MAX_LENGTH}.`,
  passwordsDoNotMatch: 'Passwords do not match.',
  displayNameTooLong: `Display name must be at most ${DISPLAY_NAME_MAX_LENGTH} characters.`,
  teamNameRequired: 'Please enter a team name.',
  codeRequired: 'Please enter the code from the email.',
  imageTooLarge: 'The image must be under 100 KB.',
  imageNotSquare: 'The image must be square.',
  imageNotImage: 'Please choose an image file.',
} as const;

/** The message for an email field, or null when it is fine. Surrounding spaces are the caller's to trim. */
export function validateEmail(value: string): string | null {
  if (value.length === 0) return MESSAGES.emailRequired;
  if (value.length > EMAIL_MAX_LENGTH) return MESSAGES.emailTooLong;
  return isValidEmail(value) ? null : MESSAGES.emailInvalid;
}

/** The message for a password field (the minimum length is the server's to report). */
export function validatePassword(value: string): string | null {
  if (value.length === 0) return MESSAGES.passwordRequired;
  if (value.length > PASSWORD_MAX_LENGTH) return MESSAGES.passwordTooLong;
  return null;
}

/** 'Passwords do not match.' when the confirmation differs. */
export function validatePasswordConfirmation(password: string, confirmation: string): string | null {
  return password === confirmation ? null : MESSAGES.passwordsDoNotMatch;
}

/** The message for a display name (empty clears it). */
export function validateDisplayName(value: string): string | null {
  return value.length > DISPLAY_NAME_MAX_LENGTH ? MESSAGES.displayNameTooLong : null;
}

/** The message for a team's name: a team needs one (unlike a user's display name). */
export function validateTeamName(value: string): string | null {
  return value.length === 0 ? MESSAGES.teamNameRequired : validateDisplayName(value);
}

/** The message for a 6-character one-time code, or null. */
export function validateOneTimeCode(value: string): string | null {
  return value.trim().length === 0 ? MESSAGES.codeRequired : null;
}

/** The message for a chosen profile image: an image, under 100 KB, square. */
export function validateProfileImage(image: { type: string; bytes: number; width: number; height: number }): string | null {
  if (!image.type.startsWith('image/')) return MESSAGES.imageNotImage;
  if (image.bytes >= PROFILE_IMAGE_MAX_BYTES) return MESSAGES.imageTooLarge;
  if (image.width !== image.height) return MESSAGES.imageNotSquare;
  return null;
}

/** Values of a form, keyed by field, checked by `validators`: the first message of each field. */
export function validateForm<K extends string>(validators: Record<K, () => string | null>): Partial<Record<K, string>> {
  const errors: Partial<Record<K, string>> = {};
  for (const key of Object.keys(validators) as K[]) {
    const message = validators[key]();
    if (message) errors[key] = message;
  }
  return errors;
}
