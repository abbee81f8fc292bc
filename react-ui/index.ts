/**
 * Latch's React UI kit: a provider, hooks, the handler that serves the auth pages, and the
 * components they are made of. Built on the SDK (`sdk/`) and its query cache.
 */
export { LatchProvider, type LatchProviderProps } from './provider.js';
export { DESTRUCTURE_USER_HINT, useApp, useProject, useUser } from './hooks.js';
export { LatchHandler, type LatchHandlerProps } from './handler/handler.js';
export { MagicLinkForm, PasskeySignIn, PasswordSignInForm, PasswordSignUpForm, SignIn, SignUp } from './components/auth-forms.js';
export { PasskeysSection } from './components/passkeys.js';
export { AccountSettings } from './components/account-settings.js';
export { OAuthButtons, OAuthProviderIcon, oauthProviderName } from './components/oauth-buttons.js';
export { OAuthCallbackPage } from './handler/oauth-callback.js';
export { UserButton } from './components/user-button.js';
export { TeamSwitcher } from './components/team-switcher.js';
export { TeamManagement } from './components/team-management.js';
export { type Plan, PlanPicker, type PlanPickerProps } from './components/plan-picker.js';
export { BillingSection, type BillingSectionProps } from './components/billing.js';
export type { PaymentItemsChoice } from './context.js';
export { Loading, TOOLTIP_OPEN_DELAY_MS, TOOLTIP_SIDE_OFFSET_PX, Tooltip, type TooltipProps } from './components/ui.js';
export { type RedirectMethod, redirectTo } from './navigation.js';
export { type PageLocation } from './location.js';
export {
  DEFAULT_HANDLER_PATH,
  HANDLER_ROUTES,
  REDIRECT_WAIT_MS,
  RETURN_TO_PARAM,
  type HandlerRoute,
  type LatchUrls,
  isRelativeUrl,
  mfaAttemptCodeKey,
  parseHandlerRoute,
  resolveUrls,
} from './urls.js';
export { STYLESHEET } from './styles.js';
export { useRunAsync } from './async-errors.js';
