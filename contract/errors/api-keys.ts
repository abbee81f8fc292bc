/** User and team API keys (spec section 8, "API keys"). */
import { defineFixedError, defineKnownError, defineMessageError } from './known-error.js';

export const apiKeyErrors = {
  /** Parent of the API-key errors below (group `ApiKeyNotValid`). */
  ApiKeyNotValid: defineMessageError('API_KEY_NOT_VALID', 401, 'The API key is not valid.'),

  /** `details.reason` is the spec's reason code for user and team keys. */
  ApiKeyExpired: defineKnownError('API_KEY_EXPIRED', 401, () => ({
    message: 'The API key has expired. Create a new one.',
    details: { reason: 'expired' as const },
  })),

  /** `details.reason` is the spec's reason code for user and team keys (checked before expiry). */
  ApiKeyRevoked: defineKnownError('API_KEY_REVOKED', 401, () => ({
    message: 'The API key has been revoked. Create a new one.',
    details: { reason: 'manually-revoked' as const },
  })),

  WrongApiKeyType: defineKnownError('WRONG_API_KEY_TYPE', 400, (expectedType: string, actualType: string) => ({
    message: `This endpoint is for ${expectedType} API keys, but a ${actualType} API key was provided.`,
    details: { expected_type: expectedType, actual_type: actualType },
  })),

  ApiKeyNotFound: defineFixedError('API_KEY_NOT_FOUND', 404, 'API key not found.'),

  PublicApiKeyCannotBeRevoked: defineFixedError(
    'PUBLIC_API_KEY_CANNOT_BE_REVOKED',
    400,
    'Public API keys cannot be revoked: they are meant to be seen. To stop one from working, set its expires_at_millis.',
  ),

  /** Latch addition: user or team API keys used while the project's allow_*_api_keys flag is off. */
  ApiKeysNotEnabled: defineKnownError('API_KEYS_NOT_ENABLED', 400, (type: 'user' | 'team') => ({
    message: `${type === 'user' ? 'User' : 'Team'} API keys are not enabled for this project. Turn on allow_${type}_api_keys in the project config.`,
    details: { type },
  })),
} as const;
