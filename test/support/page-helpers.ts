import type { Page } from 'playwright-core';

/**
 * Helpers a guest's window installs in every page before its scripts run (as `globalThis.__e2e`): the focused element
 * through shadow roots, containment across shadow boundaries, layout overflow, and a record of the mode
 * of every shadow root attached (the issue allows light DOM or open roots, never closed ones).
 */
export const PAGE_HELPERS = `(() => {
  const e2e = { shadowModes: [] };
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    e2e.shadowModes.push(init && init.mode);
    return attach.call(this, init);
  };
  e2e.deepActive = () => {
    let active = document.activeElement;
    while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
    return active;
  };
  e2e.parentOf = (node) => {
    if (!node) return null;
    if (node.parentNode instanceof ShadowRoot) return node.parentNode.host;
    return node.parentNode || null;
  };
  e2e.contains = (ancestor, node) => {
    for (let current = node; current; current = e2e.parentOf(current)) if (current === ancestor) return true;
    return false;
  };
  e2e.describe = (element) => {
    if (!element || !element.tagName) return String(element);
    const attrs = ['id', 'role', 'aria-label', 'type', 'name', 'class']
      .map((name) => element.getAttribute(name) ? name + '="' + element.getAttribute(name) + '"' : '')
      .filter(Boolean).join(' ');
    const text = (element.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 60);
    return '<' + element.tagName.toLowerCase() + (attrs ? ' ' + attrs : '') + '>' + (text ? ' "' + text + '"' : '');
  };
  e2e.allElements = (root) => {
    const out = [];
    const walk = (node) => {
      for (const child of node.children || []) {
        out.push(child);
        if (child.shadowRoot) walk(child.shadowRoot);
        walk(child);
      }
    };
    walk(root);
    return out;
  };
  e2e.deepText = (node) => {
    if (node.shadowRoot) return Array.from(node.shadowRoot.children).map(e2e.deepText).join('\\n');
    if (node.nodeType !== 1 || /^(STYLE|SCRIPT|TEMPLATE)$/.test(node.tagName)) return '';
    const hosts = Array.from(node.querySelectorAll('*')).some((element) => element.shadowRoot);
    if (!hosts) return node.innerText || '';
    return Array.from(node.children).map(e2e.deepText).join('\\n');
  };
  e2e.liveLog = [];
  e2e.liveTexts = (root) =>
    e2e.allElements(root).filter((element) => {
      const live = element.getAttribute('aria-live');
      if (live === 'off') return false;
      return live === 'polite' || live === 'assertive' || ['status', 'alert', 'log'].includes(element.getAttribute('role'));
    }).map((element) => (element.textContent || '').replace(/\\s+/g, ' ').trim());
  e2e.watchLive = (host) => {
    const root = host.shadowRoot || host;
    let last = [];
    const record = () => {
      const texts = e2e.liveTexts(root);
      for (const text of texts) if (text && !last.includes(text)) e2e.liveLog.push(text);
      last = texts;
    };
    new MutationObserver(record).observe(root, { subtree: true, childList: true, characterData: true });
    record();
  };
  e2e.overflow = () => {
    const width = document.documentElement.clientWidth;
    const offenders = e2e.allElements(document)
      .filter((element) => {
        const box = element.getBoundingClientRect();
        const style = getComputedStyle(element);
        return box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && box.right > width + 1;
      })
      .slice(0, 8)
      .map((element) => e2e.describe(element) + ' right=' + Math.round(element.getBoundingClientRect().right));
    return { viewport: width, scrollWidth: document.documentElement.scrollWidth, offenders };
  };
  globalThis.__e2e = e2e;
})();`;

/** What a 375 px layout looks like: the document's scroll width and elements that poke out. */
export async function measureOverflow(
  page: Page,
): Promise<{ viewport: number; scrollWidth: number; offenders: string[] }> {
  return page.evaluate(() => (globalThis as any).__e2e.overflow());
}

/** The modes of the shadow roots attached in the page so far. */
export async function shadowModes(page: Page): Promise<string[]> {
  return page.evaluate(() => (globalThis as any).__e2e.shadowModes);
}
