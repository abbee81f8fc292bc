/**
 * The provider's context, in its own module so hooks and components can read it without
 * importing the provider (and its stylesheet) in a cycle.
 */
import { createContext } from 'react';
import type { ClientApp } from '../sdk/index.js';
import type { RedirectMethod } from './navigation.js';
import type { LatchUrls } from './urls.js';

export interface LatchContextValue {
  app: ClientApp;
  urls: LatchUrls;
  redirectMethod: RedirectMethod;
  /** A forced colour scheme, set on every `.latch-root` (undefined: follow the system). */
  theme: 'light' | 'dark' | undefined;
  /**
   * Bumped on every session change (sign-in, sign-out, failed refresh): the SDK's session-scoped
   * query keys change then, so every consumer must render again to read the new session's data.
   */
  sessionGeneration: number;
  /** Navigates with the redirect method (relative URLs only); false when the method is 'none'. */
  navigate: (to: string) => Promise<boolean>;
  /** Shows an error nobody handled in the provider's alert (see async-errors.tsx). */
  reportError: (error: unknown) => void;
  /** The item ids the billing sections show, per customer type (the provider's `paymentItems`). */
  paymentItems: PaymentItemsChoice;
}

/**
 * Which items of the project's payments config the billing sections show: clients cannot read the
 * config, so the app names them (`user` in account settings, `team` in team management).
 */
export interface PaymentItemsChoice {
  user?: readonly string[];
  team?: readonly string[];
}

export const LatchContext = createContext<LatchContextValue | null>(null);
