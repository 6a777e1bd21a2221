import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { screenshot } from './chromium.ts';
import { measureOverflow } from './page-helpers.ts';
import { widgetOf } from './widget-page.ts';

// What assistive technology meets in the widget: axe-core's findings, controls without a name, live
// regions and field errors; and the audit every step of a flow gets (at 375 px, horizontal overflow too).

/**
 * Every violation axe-core finds in the page (the widget's shadow tree included), of any impact: minor and
 * moderate ones too (issue 32).
 */
export async function axeViolations(page: Page): Promise<string[]> {
  // Without frames, axe's legacy mode (one `axe.run` in the page) finds what its default finds (the same
  // violations, passes and incomplete checks at each step of widget-flow) in under half the time: the
  // default opens a blank page per call to merge the frames' partial results. A page with frames keeps the
  // default, which also reaches cross-origin ones (docs/decisions.md, issue 42 item 7).
  const builder = new AxeBuilder({ page });
  const results = await (page.frames().length === 1 ? builder.setLegacyMode(true) : builder).analyze();
  return results.violations.map(
    (violation) =>
      `${violation.id} (${violation.impact}): ${violation.help}: ${violation.nodes
        .slice(0, 4)
        .map((node) => `${JSON.stringify(node.target)} ${node.failureSummary?.replace(/\s+/g, ' ') ?? ''}`)
        .join(' | ')}`,
  );
}

const CONTROL_ROLES =
  'button|link|textbox|searchbox|spinbutton|combobox|checkbox|radio|slider|switch|listbox|menuitem|tab|option';

/** Lines of an ARIA snapshot that are controls without an accessible name (`- button`, `- textbox: "2"`). */
export function unnamedControls(snapshot: string): string[] {
  const unnamed = new RegExp(`^\\s*- (${CONTROL_ROLES})(\\s*\\[[^\\]]*\\])*\\s*(:.*)?$`);
  return snapshot.split('\n').filter((line) => unnamed.test(line));
}

/** Accessibility (axe, names of controls) and, at 375 px, horizontal overflow at one step of a flow. */
export async function audit(page: Page, step: string): Promise<void> {
  expect.soft(await axeViolations(page), `axe-core: violations (any impact) at "${step}"`).toEqual([]);
  const snapshot = await widgetOf(page).ariaSnapshot();
  expect.soft(unnamedControls(snapshot), `controls without an accessible name at "${step}"`).toEqual([]);
  const width = page.viewportSize()?.width ?? 0;
  if (width <= 400) {
    const overflow = await measureOverflow(page);
    expect
      .soft(
        overflow.scrollWidth,
        `at ${width} px, "${step}" scrolls sideways; elements past the edge: ${overflow.offenders.join('; ')}`,
      )
      .toBeLessThanOrEqual(width);
  }
}

/** Waits until the page is `width` wide and has laid itself out and painted at that width (two frames). */
async function afterLayout(page: Page, width: number): Promise<void> {
  await page.waitForFunction((wide) => (globalThis as any).innerWidth === wide, width);
  await page.evaluate(() => {
    const frame = (globalThis as any).requestAnimationFrame.bind(globalThis);
    return new Promise((painted) => frame(() => frame(painted)));
  });
}

/** Audits a state of the page at a phone's 375 px too (layout, names, axe), then restores the width. */
export async function auditAlsoAtPhoneWidth(page: Page, step: string): Promise<void> {
  const size = page.viewportSize();
  await page.setViewportSize({ width: 375, height: 812 });
  await afterLayout(page, 375);
  await screenshot(page, `375-${step.replace(/\W+/g, '-')}`);
  await audit(page, `${step} (375 px)`);
  if (size) await page.setViewportSize(size);
}

/** Starts recording every text that appears in a live region of the widget (what a screen reader hears). */
export async function recordAnnouncements(page: Page): Promise<void> {
  await widgetOf(page).evaluate((host) => (globalThis as any).__e2e.watchLive(host));
}

/** The texts recorded by {@link recordAnnouncements} so far. */
export async function announcements(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as any).__e2e.liveLog);
}

/** The texts of the live regions in the widget (aria-live polite/assertive, status, alert, log). */
export async function liveRegionTexts(page: Page): Promise<string[]> {
  return widgetOf(page).evaluate((host) => {
    const e2e = (globalThis as any).__e2e;
    return e2e
      .allElements(host.shadowRoot ?? host)
      .concat(host.shadowRoot ? [] : [host])
      .filter((element: any) => {
        const live = element.getAttribute('aria-live');
        const role = element.getAttribute('role');
        if (live === 'off') return false;
        return live === 'polite' || live === 'assertive' || ['status', 'alert', 'log'].includes(role);
      })
      .map((element: any) => (element.textContent ?? '').replace(/\s+/g, ' ').trim());
  });
}

/**
 * What is shown for a form field's error: whether it is marked invalid, the text tied to it by
 * `aria-describedby` / `aria-errormessage`, and the text beside it (its own container, less its label).
 */
export async function fieldError(
  control: Locator,
): Promise<{ invalid: boolean; described: string; beside: string }> {
  return control.evaluate((element) => {
    const root = element.getRootNode();
    const byId = (id: string) => (root.getElementById ? root.getElementById(id) : null);
    const ids = `${element.getAttribute('aria-describedby') ?? ''} ${element.getAttribute('aria-errormessage') ?? ''}`;
    const described = ids
      .split(/\s+/)
      .filter(Boolean)
      .map((id: string) => byId(id)?.textContent ?? '')
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim();
    let box = element.parentElement;
    const controls = (node: any) => node.querySelectorAll('input, select, textarea').length;
    while (box?.parentElement && controls(box.parentElement) <= 1) box = box.parentElement;
    const labels = Array.from(element.labels ?? []).map((label: any) => label.textContent ?? '');
    let beside = (box?.textContent ?? '').replace(/\s+/g, ' ').trim();
    for (const label of labels) beside = beside.replace(label.replace(/\s+/g, ' ').trim(), '');
    return {
      invalid: element.getAttribute('aria-invalid') === 'true' || element.matches(':user-invalid'),
      described,
      beside: beside.trim(),
    };
  });
}
