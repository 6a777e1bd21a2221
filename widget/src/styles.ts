import { css } from 'lit';
import { calendarStyles } from './calendar-styles.ts';

/**
 * The widget's own styles, scoped to its shadow root. A business restyles it with the `--bw-*` custom
 * properties and the `::part()`s named in docs/widget.md; the defaults meet WCAG 2.2 AA contrast on white.
 */
const base = css`
  :host {
    --bw-font-family: inherit;
    --bw-text: #1b1f24;
    --bw-muted: #4b5563;
    --bw-surface: #ffffff;
    --bw-panel: #f6f7f9;
    --bw-border: #6b7280;
    --bw-accent: #0b57d0;
    --bw-accent-text: #ffffff;
    --bw-danger: #b3261e;
    --bw-free: #dff3e4;
    --bw-taken: #eceef1;
    --bw-between: #d7e3fb;
    --bw-radius: 8px;
    --bw-gap: 1rem;
    display: block;
    /*
     * The height the widget draws at from its first paint, the items not yet loaded, and keeps once they
     * are (before any search): one column on a phone, two from 50rem. Pages reserve the same before the
     * script runs (docs/widget.md), so nothing below the widget moves.
     */
    min-height: 64rem;
    container-type: inline-size;
    font-family: var(--bw-font-family);
    color: var(--bw-text);
    background: var(--bw-surface);
    line-height: 1.5;
  }
  @media (min-width: 50rem) {
    :host {
      min-height: 51rem;
    }
  }
  /* The booking made: no room kept for a search and a cart that are gone (a phone's empty block below). */
  :host(:state(done)) {
    min-height: 0;
  }
  :host([hidden]) {
    display: none;
  }
  * {
    box-sizing: border-box;
  }
  h2 {
    font-size: 1.25rem;
    margin: 0 0 0.5rem;
  }
  h3 {
    font-size: 1.05rem;
    margin: 0 0 0.25rem;
  }
  p {
    margin: 0 0 0.5rem;
  }
  [tabindex='-1']:focus {
    outline: none;
  }
  :focus-visible,
  [tabindex='-1']:focus-visible {
    outline: 3px solid var(--bw-accent);
    outline-offset: 2px;
  }
  .visually-hidden {
    position: absolute !important;
    width: 1px;
    height: 1px;
    margin: -1px;
    padding: 0;
    overflow: hidden;
    clip: rect(0 0 0 0);
    white-space: nowrap;
    border: 0;
  }
  .muted {
    color: var(--bw-muted);
  }
  .layout {
    display: grid;
    gap: var(--bw-gap);
  }
  @container (min-width: 48rem) {
    .layout {
      grid-template-columns: minmax(0, 2fr) minmax(16rem, 1fr);
      align-items: start;
    }
  }
  .panel,
  .cart,
  .checkout,
  .confirmation,
  .notice {
    background: var(--bw-panel);
    border-radius: var(--bw-radius);
    padding: var(--bw-gap);
    margin-bottom: var(--bw-gap);
  }
  .fields {
    display: grid;
    grid-template-columns: repeat(auto-fill, minmax(8rem, 1fr));
    gap: 0.75rem;
    margin-bottom: 0.75rem;
  }
  .field {
    display: flex;
    flex-direction: column;
    gap: 0.25rem;
    margin: 0 0 0.75rem;
    border: 0;
    padding: 0;
    min-width: 0;
  }
  .fields .field {
    margin: 0;
  }
  .field.choice {
    flex-direction: row;
    flex-wrap: wrap;
    align-items: center;
  }
  label,
  legend {
    font-weight: 600;
  }
  .hint,
  .required {
    color: var(--bw-muted);
    font-weight: 400;
    font-size: 0.9rem;
  }
  input,
  select,
  textarea,
  button {
    font: inherit;
    color: inherit;
  }
  input:not([type='checkbox']):not([type='radio']),
  select,
  textarea {
    width: 100%;
    min-height: 2.75rem;
    padding: 0.4rem 0.5rem;
    border: 1px solid var(--bw-border);
    border-radius: calc(var(--bw-radius) / 2);
    background: var(--bw-surface);
  }
  input[type='checkbox'],
  input[type='radio'] {
    width: 1.25rem;
    height: 1.25rem;
    accent-color: var(--bw-accent);
  }
  [aria-invalid='true'] {
    border: 2px solid var(--bw-danger) !important;
  }
  .field-error,
  .unavailable,
  .expired {
    color: var(--bw-danger);
    font-weight: 600;
  }
  /* Every control a guest taps is at least 44 × 44 CSS px (WCAG 2.5.5; see docs/decisions.md). */
  button {
    min-height: 2.75rem;
    min-width: 2.75rem;
    padding: 0.4rem 0.9rem;
    border: 1px solid var(--bw-border);
    border-radius: calc(var(--bw-radius) / 2);
    background: var(--bw-surface);
    cursor: pointer;
  }
  button.primary {
    background: var(--bw-accent);
    border-color: var(--bw-accent);
    color: var(--bw-accent-text);
    font-weight: 600;
  }
  button.link {
    border: 0;
    background: none;
    padding: 0.4rem 0.25rem;
    color: var(--bw-accent);
    text-decoration: underline;
  }
  a {
    color: var(--bw-accent);
  }
  a[part='link'] {
    display: inline-flex;
    align-items: center;
    min-height: 2.75rem;
  }
  [aria-busy='true'] button {
    cursor: progress;
  }
  .items,
  .lines,
  .parts {
    list-style: none;
    margin: 0;
    padding: 0;
  }
  .item {
    display: grid;
    gap: 0.75rem;
    padding: var(--bw-gap) 0;
    border-top: 1px solid #d5d9df;
  }
  @container (min-width: 36rem) {
    .item:has(> .item-image:not([hidden])) {
      grid-template-columns: 12rem minmax(0, 1fr);
    }
  }
  /* A 4:3 box from the start (width and height attributes give the ratio too): nothing moves as it loads. */
  .item-image {
    display: block;
    width: 100%;
    max-width: 20rem;
    height: auto;
    aspect-ratio: 4 / 3;
    object-fit: cover;
    border-radius: var(--bw-radius);
    background: var(--bw-taken);
  }
  .item-image[hidden] {
    display: none;
  }
  .summary,
  .policy {
    white-space: pre-line;
  }
  .price {
    font-size: 1.2rem;
    font-weight: 700;
    margin: 0;
  }
  .line {
    padding: 0.75rem 0;
    border-bottom: 1px solid #d5d9df;
  }
  .line-name {
    font-weight: 600;
    margin: 0;
  }
  .line-controls {
    display: flex;
    align-items: center;
    justify-content: space-between;
    gap: 0.5rem;
    flex-wrap: wrap;
  }
  .stepper {
    display: flex;
    align-items: center;
    gap: 0.25rem;
  }
  .stepper input {
    width: 4rem !important;
    text-align: center;
  }
  .part {
    display: flex;
    gap: 0.5rem;
    align-items: center;
    font-size: 0.95rem;
  }
  .totals {
    margin: 0.75rem 0;
  }
  .totals div {
    display: flex;
    justify-content: space-between;
  }
  .totals dd {
    margin: 0;
  }
  .totals .total {
    font-weight: 700;
    font-size: 1.1rem;
  }
  .countdown {
    font-variant-numeric: tabular-nums;
  }
  .actions {
    display: flex;
    gap: 0.5rem;
    flex-wrap: wrap;
  }
  .notice {
    border-left: 6px solid var(--bw-danger);
  }
  .error-summary {
    border: 4px solid var(--bw-danger);
    padding: var(--bw-gap);
    margin-bottom: var(--bw-gap);
    background: var(--bw-surface);
  }
  .error-summary a {
    color: var(--bw-danger);
    font-weight: 600;
  }
  .code {
    white-space: nowrap;
    font-size: 1.3rem;
    letter-spacing: 0.05em;
  }
  .payment-terms {
    border-left: 4px solid var(--bw-accent);
    background: var(--bw-surface);
    padding: 0.5rem 0.75rem;
    margin: 0 0 0.75rem;
  }
  a.pay-link {
    padding: 0 1rem;
    border-radius: var(--bw-radius);
    background: var(--bw-accent);
    color: var(--bw-accent-text);
    font-weight: 600;
  }
`;

/** All of the widget's styles. */
export const styles = [base, calendarStyles];
