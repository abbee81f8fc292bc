import { describe, expect, it } from 'vitest';
import { axeViolations, openAppPage, useUiSuite } from './test/suite.js';

/**
 * The UI kit's Tooltip (spec section 9: open delay 0 ms, side offset 4 px) on the show-password
 * button of the sign-in form, in headless Chromium: shown on hover and on keyboard focus at once,
 * 4 px above its trigger, describing it through aria-describedby, and hidden by Escape.
 */

const ui = useUiSuite();

describe('tooltip', () => {
  it('shows at once on hover and focus, 4 px above the icon button, describes it, and Escape hides it', async () => {
    const project = await ui.h.createProject({ displayName: 'Tooltips' });
    const { context, page } = await openAppPage(ui, project, { timeoutMs: 8000 });
    await page.goto(`${ui.host.url}/handler/sign-in`);
    const toggle = page.getByRole('button', { name: 'Show password' });
    await toggle.waitFor();
    const tooltip = page.getByRole('tooltip');
    expect(await tooltip.count()).toBe(0);
    expect(await toggle.getAttribute('aria-describedby')).toBeNull();

    // Hover: shown with no delay (there within two animation frames of the event), 4 px above the button.
    const shownAfterHover = await toggle.evaluate(async (button) => {
      button.dispatchEvent(new MouseEvent('mouseover', { bubbles: true, relatedTarget: document.body }));
      await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      const shown = document.querySelector('[role="tooltip"]') !== null;
      button.dispatchEvent(new MouseEvent('mouseout', { bubbles: true, relatedTarget: document.body }));
      return shown;
    });
    expect(shownAfterHover).toBe(true);
    await tooltip.waitFor({ state: 'detached' });
    await toggle.hover();
    await tooltip.waitFor();
    expect(await tooltip.innerText()).toBe('Show password');
    const gap = await page.evaluate(() => {
      const tip = document.querySelector('[role="tooltip"]')!.getBoundingClientRect();
      const button = document.querySelector('.latch-password-toggle')!.getBoundingClientRect();
      return Math.round((button.top - tip.bottom) * 10) / 10;
    });
    expect(gap).toBe(4);
    const describedBy = await toggle.getAttribute('aria-describedby');
    expect(describedBy).toBe(await tooltip.getAttribute('id'));
    expect(await axeViolations(page)).toEqual([]);
    // Leaving hides it.
    await page.mouse.move(0, 0);
    await tooltip.waitFor({ state: 'detached' });
    expect(await toggle.getAttribute('aria-describedby')).toBeNull();

    // Keyboard focus shows it; Escape hides it while focus stays on the button.
    await page.getByRole('textbox', { name: 'Password', exact: true }).focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.classList.contains('latch-password-toggle'))).toBe(true);
    await tooltip.waitFor();
    await page.keyboard.press('Escape');
    await tooltip.waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.classList.contains('latch-password-toggle'))).toBe(true);
    // It follows the button's state: pressed, it offers to hide the password.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await tooltip.waitFor();
    expect(await tooltip.innerText()).toBe('Hide password');
    await context.close();
  });
});
