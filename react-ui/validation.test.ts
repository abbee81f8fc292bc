import { describe, expect, it } from 'vitest';
import { isValidEmail as serverIsValidEmail } from '../contract/validation/schemas.js';
import {
  MESSAGES,
  isValidEmail,
  validateDisplayName,
  validateEmail,
  validateForm,
  validateOneTimeCode,
  validatePassword,
  validatePasswordConfirmation,
  validateProfileImage,
} from './validation.js';

const EMAILS = [
  'ann@example.com',
  'a.b+tag@sub.example.co',
  '.ann@example.com',
  'ann.@example.com',
  'a..b@example.com',
  'ann@example.c',
  'ann@example.c0',
  'ann@localhost',
  'ann@@example.com',
  'ann@exa mple.com',
  '@example.com',
  'ann@-example.com',
  'ann@example-.com',
  `${'a'.repeat(250)}@ex.com`,
  `${'a'.repeat(240)}@example.com`,
];

describe('email', () => {
  it("is the server's own rule, not a copy", () => {
    expect(isValidEmail).toBe(serverIsValidEmail);
  });
  it.each(EMAILS)('%s: accepted by the form exactly when the rule accepts it', (email) => {
    expect(validateEmail(email) === null).toBe(serverIsValidEmail(email));
  });
  it('says what is wrong', () => {
    expect(validateEmail('')).toBe(MESSAGES.emailRequired);
    expect(validateEmail('ann')).toBe(MESSAGES.emailInvalid);
    expect(validateEmail('.ann@example.com')).toBe(MESSAGES.emailInvalid);
    expect(validateEmail('a..b@example.com')).toBe(MESSAGES.emailInvalid);
    expect(validateEmail('ann@example.c')).toBe(MESSAGES.emailInvalid);
    expect(validateEmail(`${'a'.repeat(250)}@ex.com`)).toBe(MESSAGES.emailTooLong);
    expect(validateEmail('ann@example.com')).toBeNull();
  });
});

describe('password', () => {
  it('is required and at most 70 characters', () => {
    expect(validatePassword('')).toBe(MESSAGES.passwordRequired);
    expect(validatePassword('x'.repeat(70))).toBeNull();
    expect(validatePassword('x'.repeat(71))).toBe('Password too long. Maximum length is 70.');
  });
  it('confirmation must match, with the spec message', () => {
    expect(validatePasswordConfirmation('abc', 'abd')).toBe('Passwords do not match.');
    expect(validatePasswordConfirmation('abc', 'abc')).toBeNull();
  });
});

describe('other fields', () => {
  it('display name at most 256', () => {
    expect(validateDisplayName('x'.repeat(256))).toBeNull();
    expect(validateDisplayName('x'.repeat(257))).toBe(MESSAGES.displayNameTooLong);
  });
  it('one-time code is required', () => {
    expect(validateOneTimeCode('  ')).toBe(MESSAGES.codeRequired);
    expect(validateOneTimeCode('A1B2C3')).toBeNull();
  });
  it('profile image: an image under 100 KB, square', () => {
    const ok = { type: 'image/png', bytes: 100 * 1024 - 1, width: 64, height: 64 };
    expect(validateProfileImage(ok)).toBeNull();
    expect(validateProfileImage({ ...ok, bytes: 100 * 1024 })).toBe(MESSAGES.imageTooLarge);
    expect(validateProfileImage({ ...ok, width: 65 })).toBe(MESSAGES.imageNotSquare);
    expect(validateProfileImage({ ...ok, type: 'application/pdf' })).toBe(MESSAGES.imageNotImage);
  });
  it('a form collects the first message of each field', () => {
    expect(validateForm({ email: () => validateEmail('x'), password: () => validatePassword('ok') })).toEqual({ email: MESSAGES.emailInvalid });
  });
});
