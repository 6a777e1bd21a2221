import { cartAmounts, sumAmounts } from '#lib/bookings/index.ts';
import type { StoredConfig } from '#lib/config/index.ts';
import { describeDates } from '#lib/kernel/dates.ts';
import { unitCount } from '#lib/kernel/guest-words.ts';
import { formatAmount } from '#lib/kernel/money.ts';
import { unixSeconds } from '#lib/kernel/time.ts';
import type { SessionLine, StoredSession } from '#lib/sessions/index.ts';

const clock = (minutes: number): string =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;

const lengthOf = (line: SessionLine): string => unitCount(line.unit, line.length);

/** The wire's `booking.session`: the cart with its lines, dates and totals (reference §2.6, wire notes). */
export function presentSession(
  session: StoredSession,
  context: { config: StoredConfig; available: Record<string, number>; now: number },
): Record<string, unknown> {
  const { decimals } = context.config.locale;
  const money = (minor: number) => formatAmount(minor, decimals);
  const lines = Object.values(session.lines).sort((a, b) => Number(a.line_id) - Number(b.line_id));
  const amounts = cartAmounts(lines, context.config.taxes, decimals);
  const totals = sumAmounts(amounts);
  const item: Record<string, unknown> = {};
  lines.forEach((line, index) => {
    const lineMoney = amounts[index] ?? sumAmounts([]);
    const length = lengthOf(line);
    const dateSummary = describeDates(line.start_date, line.last_date);
    item[line.line_id] = {
      line_id: line.line_id,
      sku: line.sku,
      item_id: line.item_id,
      name: line.name,
      unit: line.unit,
      qty: line.qty,
      param: line.payload.params,
      rate: {
        total: money(lineMoney.total - lineMoney.tax),
        item_total: money(lineMoney.subTotal),
        discount: money(lineMoney.discount),
        qty: line.qty,
        summary: `${line.qty} × ${line.name}, ${length}`,
      },
      date: {
        summary:
          line.unit === 'H'
            ? `${dateSummary}, ${clock(line.payload.startTime ?? 0)} - ${clock(line.payload.endTime ?? 0)}`
            : dateSummary,
        start_date: line.start_date,
        end_date: line.end_date,
      },
      slip: line.slip,
      available: context.available[line.line_id] ?? 0,
    };
    for (const [sub, part] of Object.entries(line.parts)) {
      item[`${line.line_id}.${sub}`] = {
        line_id: `${line.line_id}.${sub}`,
        parent: line.line_id,
        sku: part.sku,
        item_id: part.item_id,
        name: part.name,
        optional: part.optional ? 1 : 0,
        opt: part.included ? 'in' : 'out',
      };
    }
  });
  const starts = lines.map((line) => line.start_date).sort();
  const ends = lines.map((line) => line.end_date).sort();
  const lasts = lines.map((line) => line.last_date).sort();
  const hourly = lines.filter((line) => line.unit === 'H');
  return {
    id: session.id,
    age: Math.max(0, unixSeconds(context.now - session.created_at)),
    expires: session.expires_at,
    summary: lines.length === 0 ? 'Empty' : lines.map((line) => line.name).join(', '),
    start_date: starts[0] ?? '',
    end_date: ends.at(-1) ?? '',
    date_desc: starts[0] ? describeDates(starts[0], lasts.at(-1) ?? starts[0]) : '',
    time_desc: hourly
      .map((line) => `${clock(line.payload.startTime ?? 0)} - ${clock(line.payload.endTime ?? 0)}`)
      .join(', '),
    sub_total: money(totals.subTotal),
    discount: money(totals.discount),
    tax_total: money(totals.tax),
    tax_inc_total: money(totals.taxIncluded),
    total: money(totals.total),
    paid_total: money(0),
    due: money(totals.total),
    qty: lines.reduce((sum, line) => sum + line.qty, 0),
    item,
  };
}
