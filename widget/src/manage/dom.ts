import type { Answer } from './calls.ts';

// What the parts of the guest's page share: the page's root and settings, elements, money and dates in the
// tenant's words, and the answers that replace the whole page. Every text from the API is set as text, never
// as HTML. The page's HTML (functions/meta/manage-page.ts) gives the API's base, the currency, the language
// and the time zone on `#manage`.

export const root = document.getElementById('manage') as HTMLElement;
const { currency = 'USD', locale = 'en', timezone = 'UTC' } = root.dataset;
export const { api = '/api/3.0' } = root.dataset;

/** An element with attributes and children (strings become text). */
export function el(tag: string, attributes: Record<string, string> = {}, ...children: Array<Node | string>) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

const moneyFormat = (() => {
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency });
  } catch {
    return undefined;
  }
})();

/** An amount of the API ("40.00", "-40.00") in the tenant's currency. */
export const money = (amount: string) =>
  moneyFormat ? moneyFormat.format(Number(amount)) : `${amount} ${currency}`;

const format = (seconds: number, options: Intl.DateTimeFormatOptions, tag = locale) =>
  new Intl.DateTimeFormat(tag, { ...options, timeZone: timezone }).format(seconds * 1000);

/** A moment (Unix seconds) in the tenant's time zone, date and time. */
export const when = (seconds: number) => format(seconds, { dateStyle: 'medium', timeStyle: 'short' });

/** A date (Unix seconds of its local midnight) in the tenant's words. */
export const day = (seconds: number) => format(seconds, { dateStyle: 'medium' });

/** A date (Unix seconds of its local midnight) as a date field holds it: YYYY-MM-DD (Canadian English writes that). */
export const isoDay = (seconds: number) => format(seconds, {}, 'en-CA');

/**
 * Replaces what the page shows; after the guest did something, focus goes to its heading so a screen reader
 * reads the change (not on opening: the guest starts at the page's top).
 */
export function show(focus: boolean, ...children: Node[]) {
  root.replaceChildren(...children);
  if (focus) root.querySelector<HTMLElement>('h2[tabindex]')?.focus();
}

/** Replaces a part of the page (a step of the cancel or the change); focus goes to its heading. */
export function step(area: HTMLElement, ...children: Node[]) {
  area.replaceChildren(...children);
  area.querySelector<HTMLElement>('[tabindex]')?.focus();
}

/** A heading that takes focus when its step is shown. */
export const heading = (id: string, words: string) => el('h2', { id, tabindex: '-1' }, words);

/** A note in the server's words (or ours, when there was no answer). */
export const problem = (words: string) => el('p', { class: 'problem', role: 'alert' }, words);

/** Label and value rows. */
export const facts = (rows: Array<[string, string | Node]>) =>
  el(
    'dl',
    { class: 'facts' },
    ...rows.flatMap(([label, value]) => [el('dt', {}, label), el('dd', {}, value)]),
  );

/** A button that is disabled while its action runs. */
export function button(words: string, action: () => Promise<void> | void, kind = '') {
  const node = el('button', { type: 'button', class: kind }, words) as HTMLButtonElement;
  node.addEventListener('click', async () => {
    node.disabled = true;
    await action();
    node.disabled = false;
  });
  return node;
}

/** Whether an answer is about the link rather than the booking: not valid, or too many tries. */
export const aboutTheLink = (answer: Answer<unknown>) => [401, 404, 429].includes(answer.status);

/** The page for an answer that is not the booking: the link, the budget of tries, or the service. */
export function refusal(answer: Answer<unknown>): Node {
  const [title, words] =
    answer.status === 404 || answer.status === 401
      ? [
          'This link is not valid',
          'The link may be incomplete, or a newer link may have replaced it. Use the link in your latest confirmation email, or contact us below.',
        ]
      : answer.status === 429
        ? ['Too many tries', 'Please try again later (in an hour at most), or contact us below.']
        : ['Your booking could not be loaded', answer.error?.details || 'Please try again in a few minutes.'];
  return el('section', { 'aria-labelledby': 'state' }, heading('state', title), el('p', {}, words));
}

/** What a cancel or a change gives back, and how: to the card, or owed by the business. */
export function refunded(done: { refund: string; through_provider?: string; owed?: string }): Node[] {
  const card = done.through_provider ?? '0';
  const owed = done.owed ?? '0';
  return [
    ...(Number(card) > 0 ? [el('p', {}, `${money(card)} goes back to the card you paid with.`)] : []),
    ...(Number(owed) > 0
      ? [el('p', {}, `${money(owed)} is owed to you: we will pay it back to you ourselves.`)]
      : []),
  ];
}
