import { BookingWidget } from './booking-widget.ts';

if (!customElements.get('booking-widget')) customElements.define('booking-widget', BookingWidget);
