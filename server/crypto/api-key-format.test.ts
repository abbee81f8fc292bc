import { describe, expect, it } from 'vitest';
import { newApiKey, parseApiKey } from './api-key-format.js';

describe('API key format', () => {
  it('round-trips owner type and visibility through the prefix', () => {
    for (const type of ['user', 'team'] as const) {
      for (const isPublic of [false, true]) {
        const key = newApiKey(type, isPublic);
        expect(key).toMatch(/^latch_[ut][sp]k_[A-Za-z0-9_-]{44}$/);
        expect(parseApiKey(key)).toEqual({ type, isPublic });
      }
    }
    expect(newApiKey('user', false).startsWith('latch_usk_')).toBe(true);
    expect(newApiKey('team', true).startsWith('latch_tpk_')).toBe(true);
  });

  it('never repeats a key', () => {
    const keys = new Set(Array.from({ length: 200 }, () => newApiKey('user', false)));
    expect(keys.size).toBe(200);
  });

  it('catches every single-character typo, truncation and extension without a lookup', () => {
    const key = newApiKey('team', false);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 'latch_tsk_'.length; i < key.length; i++) {
      const replacement = alphabet[(alphabet.indexOf(key[i]!) + 7) % alphabet.length]!;
      expect(parseApiKey(key.slice(0, i) + replacement + key.slice(i + 1)), `position ${i}`).toBeNull();
    }
    // Two adjacent characters swapped (when they differ).
    const swapAt = [...key].findIndex((c, i) => i > 12 && c !== key[i + 1]);
    expect(parseApiKey(key.slice(0, swapAt) + key[swapAt + 1] + key[swapAt] + key.slice(swapAt + 2))).toBeNull();
    expect(parseApiKey(key.slice(0, -1))).toBeNull();
    expect(parseApiKey(`${key}x`)).toBeNull();
    expect(parseApiKey(` ${key}`)).toBeNull();
  });

  it('refuses a key whose prefix was changed (a user key relabelled as a team key, or public as secret)', () => {
    const key = newApiKey('user', false);
    expect(parseApiKey(key.replace(/^latch_usk_/, 'latch_tsk_'))).toBeNull();
    expect(parseApiKey(key.replace(/^latch_usk_/, 'latch_upk_'))).toBeNull();
  });

  it('refuses other strings', () => {
    for (const value of ['', 'latch_', 'latch_usk_', 'pck_abc', 'latch_xsk_' + 'a'.repeat(44), 'latch_usk_' + 'a'.repeat(44), 'LATCH_USK_' + 'a'.repeat(44)]) {
      expect(parseApiKey(value), value).toBeNull();
    }
  });
});
