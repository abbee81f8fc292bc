/**
 * The UI kit's one stylesheet, injected once into the page's <head>. Every rule is scoped under
 * `.latch-` classes so it never touches the host's elements, and every colour, radius and font
 * is a CSS variable on `.latch-root`, so a host themes the kit by overriding variables:
 *
 *   .latch-root { --latch-primary: #0f766e; --latch-radius: 4px; }
 *
 * Dark mode follows `prefers-color-scheme`, and `data-latch-theme="light" | "dark"` on any
 * ancestor (or the root) forces one.
 */

/** The id of the injected <style> element (one per document). */
export const STYLE_ELEMENT_ID = 'latch-ui-styles';

const LIGHT = `
  --latch-bg: #ffffff;
  --latch-surface: #ffffff;
  --latch-muted-bg: #f4f4f5;
  --latch-fg: #18181b;
  --latch-muted-fg: #52525b;
  --latch-border: #d4d4d8;
  --latch-primary: #4f46e5;
  --latch-primary-hover: #4338ca;
  --latch-primary-fg: #ffffff;
  --latch-danger: #b91c1c;
  --latch-danger-bg: #fef2f2;
  --latch-success: #15803d;
  --latch-success-bg: #f0fdf4;
  --latch-focus: #6366f1;
  --latch-shadow: 0 1px 2px rgb(0 0 0 / 0.06), 0 4px 16px rgb(0 0 0 / 0.06);`;

const DARK = `
  --latch-bg: #09090b;
  --latch-surface: #18181b;
  --latch-muted-bg: #27272a;
  --latch-fg: #fafafa;
  --latch-muted-fg: #a1a1aa;
  --latch-border: #3f3f46;
  --latch-primary: #818cf8;
  --latch-primary-hover: #a5b4fc;
  --latch-primary-fg: #111827;
  --latch-danger: #fca5a5;
  --latch-danger-bg: #450a0a;
  --latch-success: #86efac;
  --latch-success-bg: #052e16;
  --latch-focus: #a5b4fc;
  --latch-shadow: 0 1px 2px rgb(0 0 0 / 0.4), 0 4px 16px rgb(0 0 0 / 0.3);`;

export const STYLESHEET = `
.latch-root {${LIGHT}
  --latch-radius: 10px;
  --latch-font: ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--latch-fg);
  font-family: var(--latch-font);
  font-size: 15px;
  line-height: 1.5;
  color-scheme: light;
}
@media (prefers-color-scheme: dark) {
  .latch-root:not([data-latch-theme="light"]):not([data-latch-theme="light"] *) {${DARK} color-scheme: dark; }
}
[data-latch-theme="dark"] .latch-root, .latch-root[data-latch-theme="dark"] {${DARK} color-scheme: dark; }
[data-latch-theme="light"] .latch-root, .latch-root[data-latch-theme="light"] {${LIGHT} color-scheme: light; }
.latch-root *, .latch-root *::before, .latch-root *::after { box-sizing: border-box; }
.latch-page { min-height: 100%; display: flex; justify-content: center; align-items: flex-start; padding: 48px 16px; background: var(--latch-page-bg, transparent); }
.latch-card { width: 100%; max-width: 400px; background: var(--latch-surface); border: 1px solid var(--latch-border); border-radius: var(--latch-radius); box-shadow: var(--latch-shadow); padding: 28px; }
.latch-card-wide { max-width: 720px; }
.latch-title { font-size: 22px; font-weight: 650; margin: 0 0 4px; letter-spacing: -0.01em; }
.latch-root .latch-title:focus { outline: none; }
.latch-subtitle { color: var(--latch-muted-fg); margin: 0 0 20px; font-size: 14px; }
.latch-section { border-top: 1px solid var(--latch-border); padding: 20px 0; }
.latch-section:first-of-type { border-top: none; }
.latch-section-title { font-size: 16px; font-weight: 600; margin: 0 0 12px; }
.latch-form { display: flex; flex-direction: column; gap: 14px; margin: 0; }
.latch-field { display: flex; flex-direction: column; gap: 6px; }
.latch-label { font-size: 14px; font-weight: 550; }
.latch-input { font: inherit; color: var(--latch-fg); background: var(--latch-surface); border: 1px solid var(--latch-border); border-radius: calc(var(--latch-radius) - 4px); padding: 9px 12px; width: 100%; min-height: 40px; }
.latch-input[aria-invalid="true"] { border-color: var(--latch-danger); }
.latch-input:disabled { opacity: 0.6; }
.latch-password { position: relative; }
.latch-tooltip-anchor { position: relative; display: inline-flex; }
.latch-tooltip::after { content: ""; position: absolute; left: 0; right: 0; top: 100%; height: 8px; }
.latch-tooltip { position: absolute; left: 50%; transform: translateX(-50%); z-index: 10; white-space: nowrap; font-size: 12px; line-height: 1.4; padding: 4px 8px; border-radius: 6px; color: var(--latch-bg); background: var(--latch-fg); box-shadow: var(--latch-shadow); }
.latch-password .latch-input { padding-right: 64px; }
.latch-password-toggle-anchor { position: absolute; right: 4px; top: 50%; transform: translateY(-50%); }
.latch-password-toggle { font: inherit; font-size: 13px; font-weight: 550; color: var(--latch-muted-fg); background: none; border: none; border-radius: calc(var(--latch-radius) - 6px); padding: 6px 8px; cursor: pointer; }
.latch-password-toggle:hover { color: var(--latch-fg); background: var(--latch-muted-bg); }
.latch-field-error { color: var(--latch-danger); font-size: 13px; margin: 0; }
.latch-hint { color: var(--latch-muted-fg); font-size: 13px; margin: 0; }
.latch-button { font: inherit; font-weight: 550; display: inline-flex; align-items: center; justify-content: center; gap: 8px; min-height: 40px; padding: 8px 16px; border-radius: calc(var(--latch-radius) - 4px); border: 1px solid transparent; cursor: pointer; background: var(--latch-primary); color: var(--latch-primary-fg); text-decoration: none; }
.latch-button:hover:not(:disabled) { background: var(--latch-primary-hover); }
.latch-button:disabled { opacity: 0.6; cursor: not-allowed; }
.latch-button-secondary { background: var(--latch-surface); color: var(--latch-fg); border-color: var(--latch-border); }
.latch-button-secondary:hover:not(:disabled) { background: var(--latch-muted-bg); }
.latch-button-danger { background: var(--latch-danger); color: var(--latch-surface); }
.latch-button-danger:hover:not(:disabled) { background: var(--latch-danger); filter: brightness(0.92); }
.latch-button-small { min-height: 32px; padding: 4px 10px; font-size: 13px; }
.latch-button-block { width: 100%; }
.latch-link { color: var(--latch-primary); text-decoration: underline; text-underline-offset: 2px; cursor: pointer; background: none; border: none; padding: 0; font: inherit; }
.latch-file-button:has(:focus-visible) { outline: 2px solid var(--latch-focus); outline-offset: 2px; }
.latch-root :focus-visible { outline: 2px solid var(--latch-focus); outline-offset: 2px; }
.latch-alert { border-radius: calc(var(--latch-radius) - 4px); padding: 10px 12px; font-size: 14px; margin: 0 0 14px; }
.latch-form > .latch-alert, .latch-list-item .latch-alert { margin: 0; }
.latch-alert-error { background: var(--latch-danger-bg); color: var(--latch-danger); }
.latch-unhandled { position: fixed; left: 50%; bottom: 16px; transform: translateX(-50%); z-index: 2147483000; width: min(560px, calc(100vw - 32px)); display: grid; gap: 8px; }
.latch-unhandled-alert { margin: 0; display: flex; gap: 12px; justify-content: space-between; align-items: center; box-shadow: 0 4px 16px rgb(0 0 0 / 0.18); }
.latch-impersonation { position: sticky; top: 0; z-index: 2147482000; }
.latch-impersonation-banner { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; justify-content: center; padding: 8px 16px; background: #fef3c7; color: #78350f; border-bottom: 1px solid #f59e0b; font-size: 14px; }
.latch-alert-success { background: var(--latch-success-bg); color: var(--latch-success); }
.latch-alert-info { background: var(--latch-muted-bg); color: var(--latch-fg); }
.latch-divider { display: flex; align-items: center; gap: 12px; color: var(--latch-muted-fg); font-size: 13px; margin: 18px 0; }
.latch-divider::before, .latch-divider::after { content: ""; flex: 1; border-top: 1px solid var(--latch-border); }
.latch-footer { margin-top: 18px; font-size: 14px; color: var(--latch-muted-fg); text-align: center; display: flex; flex-direction: column; gap: 6px; }
.latch-row { display: flex; align-items: center; gap: 10px; flex-wrap: wrap; }
.latch-row-between { justify-content: space-between; }
.latch-list { list-style: none; margin: 0 0 12px; padding: 0; display: flex; flex-direction: column; gap: 8px; }
.latch-list-item { display: flex; align-items: center; justify-content: space-between; gap: 10px; padding: 10px 12px; border: 1px solid var(--latch-border); border-radius: calc(var(--latch-radius) - 4px); flex-wrap: wrap; }
.latch-badge { display: inline-block; font-size: 12px; padding: 1px 8px; border-radius: 999px; background: var(--latch-muted-bg); color: var(--latch-muted-fg); margin-left: 6px; }
.latch-badge-success { background: var(--latch-success-bg); color: var(--latch-success); }
.latch-avatar { width: 32px; height: 32px; border-radius: 50%; display: inline-flex; align-items: center; justify-content: center; background: var(--latch-primary); color: var(--latch-primary-fg); font-weight: 600; font-size: 14px; overflow: hidden; flex: none; object-fit: cover; }
.latch-avatar-large { width: 64px; height: 64px; font-size: 24px; }
.latch-menu-anchor { position: relative; display: inline-block; }
.latch-user-button { display: inline-flex; align-items: center; gap: 8px; background: none; border: 1px solid transparent; border-radius: 999px; padding: 2px; cursor: pointer; color: inherit; font: inherit; }
.latch-user-button:hover { border-color: var(--latch-border); }
[data-latch-user-name] { max-width: 220px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.latch-menu { position: absolute; right: 0; top: calc(100% + 6px); min-width: 220px; z-index: 1000; background: var(--latch-surface); border: 1px solid var(--latch-border); border-radius: var(--latch-radius); box-shadow: var(--latch-shadow); padding: 6px; display: flex; flex-direction: column; }
.latch-menu-header { padding: 8px 10px; border-bottom: 1px solid var(--latch-border); margin-bottom: 4px; font-size: 14px; }
.latch-menu-header-email { color: var(--latch-muted-fg); font-size: 13px; overflow-wrap: anywhere; }
.latch-menu-item { text-align: left; font: inherit; font-size: 14px; background: none; border: none; border-radius: calc(var(--latch-radius) - 4px); padding: 8px 10px; cursor: pointer; color: var(--latch-fg); }
.latch-menu-item:hover, .latch-menu-item:focus-visible { background: var(--latch-muted-bg); }
.latch-select { font: inherit; color: var(--latch-fg); background: var(--latch-surface); border: 1px solid var(--latch-border); border-radius: calc(var(--latch-radius) - 4px); padding: 6px 10px; min-height: 36px; }
.latch-tabs { display: flex; gap: 4px; background: var(--latch-muted-bg); padding: 4px; border-radius: var(--latch-radius); margin-bottom: 18px; }
.latch-tab { flex: 1; font: inherit; font-size: 14px; border: none; background: none; color: var(--latch-muted-fg); padding: 6px 8px; border-radius: calc(var(--latch-radius) - 4px); cursor: pointer; }
.latch-tab[aria-selected="true"] { background: var(--latch-surface); color: var(--latch-fg); box-shadow: var(--latch-shadow); }
.latch-spinner { width: 16px; height: 16px; border: 2px solid currentColor; border-right-color: transparent; border-radius: 50%; animation: latch-spin 0.7s linear infinite; display: inline-block; }
.latch-loading { display: flex; justify-content: center; align-items: center; gap: 10px; color: var(--latch-muted-fg); padding: 24px; }
.latch-secret { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; background: var(--latch-muted-bg); padding: 8px 10px; border-radius: 6px; overflow-wrap: anywhere; }
.latch-oauth { display: flex; flex-direction: column; gap: 8px; margin-bottom: 14px; }
.latch-oauth-icon { flex: none; }
.latch-divider { display: flex; align-items: center; gap: 10px; color: var(--latch-muted-fg); font-size: 13px; margin: 4px 0 14px; }
.latch-divider::before, .latch-divider::after { content: ""; flex: 1; border-top: 1px solid var(--latch-border); }
.latch-sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0,0,0,0); white-space: nowrap; border: 0; }
@keyframes latch-spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .latch-spinner { animation-duration: 2s; } }
`;

/** Adds the stylesheet to `document` once (a no-op without a DOM, or when it is there already). */
export function injectStyles(doc: Document | undefined = typeof document === 'undefined' ? undefined : document): void {
  if (!doc || doc.getElementById(STYLE_ELEMENT_ID)) return;
  const style = doc.createElement('style');
  style.id = STYLE_ELEMENT_ID;
  style.textContent = STYLESHEET;
  doc.head.appendChild(style);
}
