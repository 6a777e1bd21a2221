import type { Locator, Page } from 'playwright-core';

// The keyboard focus, read through shadow roots with the page helpers (`globalThis.__e2e`), and moving it
// with the keyboard alone.

/** The element that has the keyboard focus, described (tag, role, name, text), reading through shadow roots. */
export async function describeFocus(page: Page): Promise<string> {
  return page.evaluate(() => {
    const e2e = (globalThis as any).__e2e;
    return e2e.describe(e2e.deepActive());
  });
}

/**
 * Whether the focused element shows where the focus is (WCAG 2.4.7): a focus outline or ring, compared
 * with how it looks once the focus has left it.
 */
export async function focusIndicator(
  page: Page,
): Promise<{ visible: boolean; element: string; style: string }> {
  return page.evaluate(() => {
    const e2e = (globalThis as any).__e2e;
    const active = e2e.deepActive();
    if (!active || active.tagName === 'BODY') return { visible: false, element: 'body', style: '' };
    const look = (element: any) => {
      const style = (globalThis as any).getComputedStyle(element);
      return {
        outline: style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) > 0,
        text: `outline: ${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}; box-shadow: ${style.boxShadow}; border: ${style.borderColor}; background: ${style.backgroundColor}`,
      };
    };
    const focused = look(active);
    return {
      visible: focused.outline || !/^none$/.test((globalThis as any).getComputedStyle(active).boxShadow),
      element: e2e.describe(active),
      style: focused.text,
    };
  });
}

/** Whether the focused element (through shadow roots) is the target's element. */
export async function isFocused(target: Locator): Promise<boolean> {
  const handle = await target.elementHandle({ timeout: 2000 }).catch(() => null);
  if (!handle) return false;
  return target.page().evaluate((element) => (globalThis as any).__e2e.deepActive() === element, handle);
}

/**
 * Whether the focus is on or inside the element of `area`, or on an element next to it that names it (a
 * heading or a focusable title in the same parent), as "focus moves to what changed" allows.
 */
export async function focusIsIn(area: Locator): Promise<boolean> {
  const handle = await area.elementHandle({ timeout: 2000 }).catch(() => null);
  if (!handle) return false;
  return area.page().evaluate((element) => {
    const e2e = (globalThis as any).__e2e;
    const active = e2e.deepActive();
    if (!active || active.tagName === 'BODY') return false;
    if (e2e.contains(element, active) || e2e.contains(active, element)) {
      return active.tagName.toLowerCase() !== 'booking-widget';
    }
    const parent = e2e.parentOf(active);
    const namesIt =
      /^h[1-6]$/i.test(active.tagName) ||
      active.getAttribute('role') === 'heading' ||
      active.getAttribute('tabindex') === '-1';
    return (
      namesIt &&
      !!parent &&
      parent.tagName?.toLowerCase() !== 'booking-widget' &&
      e2e.contains(parent, element)
    );
  }, handle);
}

/**
 * Moves the focus with the keyboard alone (Tab, then Shift+Tab) until it is on the target; fails when the
 * target cannot be reached so.
 */
export async function tabTo(page: Page, target: Locator, limit = 80): Promise<void> {
  for (const key of ['Tab', 'Shift+Tab']) {
    for (let presses = 0; presses < limit; presses++) {
      if (await isFocused(target)) return;
      await page.keyboard.press(key);
    }
  }
  if (await isFocused(target)) return;
  throw new Error(
    `${target} cannot be reached with Tab / Shift+Tab (focus is on ${await describeFocus(page)})`,
  );
}

/** Types a `YYYY-MM-DD` date into a focused date control by keyboard (a native date input or a text field). */
export async function typeDate(page: Page, control: Locator, date: string): Promise<void> {
  const type = await control.evaluate((element) => element.getAttribute('type') ?? 'text');
  if (type === 'date') {
    const [year, month, day] = date.split('-');
    // A native date input in an en-US browser takes month, day and year segments, each moving on by itself.
    await page.keyboard.type(`${month}${day}${year}`);
  } else {
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type(date);
  }
}
