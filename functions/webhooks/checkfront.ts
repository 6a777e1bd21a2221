import type { StoredEvent } from '#lib/kernel/events.ts';
import type { presentRecord } from '../bookings/present.ts';

type BookingRecordWire = ReturnType<typeof presentRecord>;

/** XML-born JSON: every scalar a string, as receivers built for the API 3.0 notifications expect. */
const text = (value: unknown): string => (value === undefined || value === null ? '' : String(value));

/**
 * The API 3.0 notification body of a booking event, sent as JSON: the booking under `booking` with
 * `@attributes {booking_id (the number as a string), code}`, its status, code and dates, `customer {…}` and `order {…, items {item}}`,
 * where a single item is an object and several are an array (as the XML they were converted from).
 */
export function checkfrontNotification(booking: BookingRecordWire, event: StoredEvent) {
  const items = Object.entries(booking.items).map(([lineId, line]) => ({
    '@attributes': { line_id: text(lineId), item_id: text(line.item_id), sku: text(line.sku) },
    name: text(line.name),
    qty: text(line.qty),
    start_date: text(line.start_date),
    end_date: text(line.end_date),
    status: text(line.status_id),
    total: text(line.total),
  }));
  return {
    booking: {
      // The booking's number, as the API 3.0 service's samples have it ("157"), and its code beside it.
      '@attributes': { booking_id: text(booking.booking_id), code: text(booking.code) },
      event: text(event.type),
      notify: event.data.notify === false ? '0' : '1',
      id: text(booking.booking_id),
      code: text(booking.code),
      status: text(booking.status_id),
      status_name: text(booking.status_name),
      created_date: text(booking.created_date),
      last_modified: text(booking.last_modified),
      start_date: text(booking.start_date),
      end_date: text(booking.end_date),
      summary: text(booking.summary),
      customer: {
        id: text(booking.customer_id),
        name: text(booking.form.customer_name),
        email: text(booking.form.customer_email),
        phone: text(booking.form.customer_phone),
        address: text(booking.form.customer_address),
        city: text(booking.form.customer_city),
        region: text(booking.form.customer_region),
        country: text(booking.form.customer_country),
        postal_zip: text(booking.form.customer_postal_zip),
      },
      order: {
        sub_total: text(booking.sub_total),
        discount: text(booking.discount),
        tax_total: text(booking.tax_total),
        paid_total: text(booking.paid_total),
        total: text(booking.total),
        due: text(booking.due),
        items: { item: items.length === 1 ? items[0] : items },
      },
    },
  };
}
