import { css } from 'lit';

/** The styles of the availability calendar, the time slots and the package opt-ins (see styles.ts). */
export const calendarStyles = css`
  .availability {
    padding: 0.75rem;
  }
  .chooser {
    min-height: 4.75rem;
    margin: 0 0 0.5rem;
  }
  .month-nav {
    display: flex;
    align-items: center;
    justify-content: space-between;
    gap: 0.5rem;
  }
  .month-nav h3 {
    margin: 0;
  }
  .month-nav [aria-disabled='true'] {
    color: var(--bw-muted);
    border-color: var(--bw-taken);
    cursor: default;
  }
  .link-note {
    border-left: 4px solid var(--bw-accent);
    padding-left: 0.5rem;
  }
  .grid {
    border-collapse: collapse;
    width: 100%;
    table-layout: fixed;
    margin: 0.5rem 0;
  }
  .grid th {
    font-size: 0.85rem;
    font-weight: 600;
    padding: 0.25rem 0;
  }
  .grid td {
    position: relative;
    padding: 0;
    height: 3.25rem;
  }
  .day {
    display: flex;
    flex-direction: column;
    align-items: center;
    justify-content: center;
    width: 100%;
    height: 3.25rem;
    min-width: 0;
    padding: 0;
    border: 1px solid var(--bw-surface);
    border-radius: calc(var(--bw-radius) / 2);
    line-height: 1.1;
  }
  .day .num {
    font-weight: 600;
  }
  .day {
    justify-content: flex-start;
    padding-top: 0.45rem;
  }
  /* The price sits on the day's button (a tap goes through it to the button) but is not its name's text:
     the name says it in words ("from $150 a night"). */
  .night-price {
    position: absolute;
    left: 0;
    right: 0;
    bottom: 0.4rem;
    font-size: 0.7rem;
    line-height: 1;
    text-align: center;
    pointer-events: none;
  }
  .grid td:has(.start) .night-price,
  .grid td:has(.end) .night-price {
    color: var(--bw-accent-text);
  }
  .day.past,
  .day.unknown {
    background: var(--bw-surface);
    color: var(--bw-muted);
  }
  .day.start,
  .day.end {
    background: var(--bw-accent);
    color: var(--bw-accent-text);
    text-decoration: none;
  }
  .day.between {
    background: var(--bw-between);
    text-decoration: none;
  }
  .day[aria-disabled='true'] {
    cursor: default;
  }
  .legend {
    font-size: 0.85rem;
    margin: 0;
  }
  /* Not .choice: that is the form's box-and-label row (styles.ts), which space-between pulls apart. */
  .dates-chosen {
    display: flex;
    align-items: center;
    justify-content: space-between;
    flex-wrap: wrap;
    gap: 0.5rem;
    min-height: 3rem;
  }
  .dates-chosen p {
    margin: 0;
    font-weight: 600;
  }
  /* Room for the quantities before the items are known: one row wide, two on a phone (three fields). */
  .search .fields {
    min-height: 4.75rem;
  }
  @container (max-width: 47.99rem) {
    .search .fields {
      min-height: 9.75rem;
    }
  }
  .slots {
    border: 0;
    padding: 0;
    margin: 0 0 0.5rem;
  }
  .slot-list {
    display: flex;
    flex-wrap: wrap;
    gap: 0.5rem;
  }
  .slot[aria-pressed='true'] {
    background: var(--bw-accent);
    border-color: var(--bw-accent);
    color: var(--bw-accent-text);
  }
  .slot[aria-disabled='true'] {
    color: var(--bw-muted);
    text-decoration: line-through;
    cursor: default;
  }
  .optin {
    margin: 0;
  }
  .part label {
    display: flex;
    align-items: center;
    min-height: 2.75rem;
    min-width: 2.75rem;
  }
  .free {
    background: var(--bw-free);
  }
  .taken {
    background: var(--bw-taken);
    color: var(--bw-muted);
    text-decoration: line-through;
  }
  .key {
    display: inline-block;
    width: 1rem;
    height: 1rem;
    vertical-align: middle;
    text-decoration: none;
  }
`;
