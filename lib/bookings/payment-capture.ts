import { DomainError } from '../kernel/errors.ts';
import type { Db } from '../kernel/storage/database.ts';
import { transact } from '../kernel/storage/transact.ts';
import { unixSeconds } from '../kernel/time.ts';
import { PaymentProviderError, withCallLimits } from '../payments/index.ts';
import { isInactive } from './booking.ts';
import { applyProviderPayment } from './payment-apply.ts';
import { deleteCaptureMarkAction, listCapturesDue } from './payment-capture-mark.ts';
import { serviceContext } from './payment-change.ts';
import { LAPSE_PROVIDER_CALL_MS, type SweepPaymentsOptions } from './payment-lapse.ts';
import { captureAttempt } from './payment-staff.ts';
import { getBookingRecord } from './repository.ts';

// The sweeper's capture of authorisations (issue 43 item 2): with `capture: manual` and
// `capture_days_before_start`, each authorised attempt of an active booking is captured at the time its mark
// names, through staff's capture path, and recorded with `reason: scheduled_capture`.

/** What one run of the scheduled capture did. */
export interface CaptureRunReport {
  /** Attempts captured and recorded in this run. */
  captured: number;
  /** Marks due but kept for the next sweep: the provider failed, hung, or the run's time ran out. */
  left: number;
}

/**
 * Captures every authorised payment whose capture time has come, oldest first, each on its own. A payment
 * captured, cancelled or given back meanwhile, or whose booking was let go, is not captured: its mark goes. A
 * provider that fails or hangs leaves the mark for the next sweep; with `endBy` (on `clock`), no capture is
 * begun after it and no provider call runs past it (each at most `providerCallMs`, and none after one that
 * found no answer), as in the lapse.
 */
export async function captureScheduledPayments(
  db: Db,
  options: SweepPaymentsOptions,
): Promise<CaptureRunReport> {
  const clock = options.clock ?? Date.now;
  const endBy = options.endBy ?? Number.POSITIVE_INFINITY;
  const due = await listCapturesDue(db, unixSeconds(options.now));
  if (!options.provider) return { captured: 0, left: due.length };
  const callMs = options.providerCallMs ?? LAPSE_PROVIDER_CALL_MS;
  const provider = withCallLimits(options.provider, { callMs, endBy, clock });
  const ctx = { ...serviceContext({ db, config: options.config, now: options.now }), provider };
  const report: CaptureRunReport = { captured: 0, left: 0 };
  for (const [index, mark] of due.entries()) {
    if (clock() >= endBy) {
      report.left += due.length - index;
      break;
    }
    const record = await getBookingRecord(db, mark.booking_id);
    const attempt = record?.attempts?.find((one) => one.payment_id === mark.payment_id);
    // Captured by staff, cancelled at the provider, or its booking cancelled (whose authorisation the
    // sweeper's release lets go): nothing to capture.
    if (!record || attempt?.status !== 'authorised' || isInactive(record.booking.status_id)) {
      await transact(db, [deleteCaptureMarkAction(db, mark)]);
      continue;
    }
    try {
      await captureAttempt(ctx, { bookingId: mark.booking_id, attempt, reason: 'scheduled_capture' });
      report.captured += 1;
    } catch (error) {
      if (error instanceof DomainError && error.code === 'invalid_status') continue;
      if (!(error instanceof PaymentProviderError)) throw error;
      report.left += 1;
      // Refused: the authorisation is no longer there to capture (cancelled or expired at the provider, its
      // event not here yet). Read back, it is applied as its event would be, which takes the mark off.
      if (error.code !== 'refused' || !attempt.provider_payment_id) continue;
      try {
        const payment = await provider.readPayment(attempt.provider_payment_id);
        if (payment.state === 'authorised') continue;
        await applyProviderPayment(
          { db, config: options.config, now: options.now, provider },
          { bookingId: mark.booking_id, paymentId: attempt.payment_id, payment },
        );
        report.left -= 1;
      } catch (again) {
        if (!(again instanceof PaymentProviderError)) throw again;
      }
    }
  }
  return report;
}
