import type Stripe from 'stripe';
import type { ChargeRecord, IntentRecord, RefundRecord, SessionRecord } from './state.ts';

// Every builder is typed with the official SDK's own type, so `tsc` refuses an object that lacks a field the
// SDK says Stripe always sends, or carries a value of the wrong kind; the OpenAPI document checks the rest
// in the tests (test/integration/stripe-stand-in*.test.ts).

/** An amount in minor units written as a guest reads it (`$12.50`, `¥1,250`): Intl knows each currency's digits. */
export function formatMoney(amount: number, currency: string): string {
  const format = new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() });
  return format.format(amount / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
}

/** The test cards the checkout page offers: Stripe's 4242 (succeeds) and 0002 (declined, generic). */
export const TEST_CARDS = {
  success: { last4: '4242', brand: 'visa' },
  decline: { last4: '0002', brand: 'visa' },
} as const;

/** The Checkout Session as Stripe returns it (`payment_intent` an id; the API layer expands it). */
export function sessionObject(record: SessionRecord, pageUrl: string): Stripe.Checkout.Session {
  const open = record.status === 'open';
  return {
    id: record.id,
    object: 'checkout.session',
    adaptive_pricing: null,
    after_expiration: null,
    allow_promotion_codes: null,
    allowed_payment_method_types: null,
    amount_subtotal: record.amountTotal,
    amount_total: record.amountTotal,
    automatic_tax: { enabled: false, liability: null, provider: null, status: null },
    billing_address_collection: null,
    cancel_url: record.cancelUrl,
    client_reference_id: record.clientReferenceId,
    client_secret: null,
    collected_information: null,
    consent: null,
    consent_collection: null,
    created: record.created,
    currency: record.currency,
    currency_conversion: null,
    custom_fields: [],
    custom_text: {
      after_submit: null,
      shipping_address: null,
      submit: null,
      terms_of_service_acceptance: null,
    },
    customer: null,
    customer_account: null,
    customer_creation: 'if_required',
    // Stripe fills the guest's details once they pay; the page takes no details beyond the card.
    customer_details:
      record.status === 'complete'
        ? {
            address: null,
            business_name: null,
            email: record.customerEmail,
            individual_name: null,
            name: null,
            phone: null,
            tax_exempt: 'none',
            tax_ids: [],
          }
        : null,
    customer_email: record.customerEmail,
    discounts: [],
    expires_at: record.expiresAt,
    integration_identifier: null,
    invoice: null,
    invoice_creation: null,
    livemode: false,
    locale: null,
    managed_payments: null,
    metadata: { ...record.metadata },
    mode: 'payment',
    origin_context: null,
    payment_intent: record.paymentIntentId,
    payment_link: null,
    payment_method_collection: 'if_required',
    payment_method_configuration_details: null,
    payment_method_options: {},
    payment_method_types: ['card'],
    payment_status: record.paymentStatus,
    permissions: null,
    recovered_from: null,
    saved_payment_method_options: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_options: [],
    status: record.status,
    submit_type: null,
    subscription: null,
    success_url: record.successUrl,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted_page',
    url: open ? pageUrl : null,
    wallet_options: null,
  };
}

/** The PaymentIntent as Stripe returns it (`latest_charge` an id). */
export function intentObject(record: IntentRecord): Stripe.PaymentIntent {
  const error = record.lastPaymentError;
  return {
    id: record.id,
    object: 'payment_intent',
    allowed_payment_method_types: null,
    amount: record.amount,
    amount_capturable: record.amountCapturable,
    amount_details: { tip: {} },
    amount_received: record.amountReceived,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: null,
    canceled_at: record.canceledAt,
    cancellation_reason: record.cancellationReason,
    capture_method: record.captureMethod,
    client_secret: `${record.id}_secret_${record.id.slice(3, 28)}`,
    confirmation_method: 'automatic',
    created: record.created,
    currency: record.currency,
    customer: null,
    customer_account: null,
    description: record.description,
    excluded_payment_method_types: null,
    last_payment_error: error
      ? {
          type: 'card_error',
          charge: error.chargeId,
          code: error.code,
          decline_code: error.declineCode,
          doc_url: `https://stripe.com/docs/error-codes/${error.code.replaceAll('_', '-')}`,
          message: error.message,
          payment_method_type: 'card',
        }
      : null,
    latest_charge: record.latestChargeId,
    livemode: false,
    managed_payments: null,
    metadata: { ...record.metadata },
    next_action: null,
    on_behalf_of: null,
    payment_method: record.status === 'requires_payment_method' ? null : record.paymentMethodId,
    payment_method_configuration_details: null,
    payment_method_options: {
      card: {
        installments: null,
        mandate_options: null,
        network: null,
        request_three_d_secure: 'automatic',
      },
    },
    payment_method_types: ['card'],
    payment_record: null,
    processing: null,
    receipt_email: record.receiptEmail,
    review: null,
    setup_future_usage: null,
    shipping: null,
    source: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: record.status,
    transfer_data: null,
    transfer_group: null,
  };
}

/** The Charge as Stripe returns it (`payment_intent` an id). */
export function chargeObject(record: ChargeRecord, expYear: number): Stripe.Charge {
  const card = record.failure ? TEST_CARDS.decline : TEST_CARDS.success;
  const refunded = record.released + record.refundedByRefunds;
  return {
    id: record.id,
    object: 'charge',
    amount: record.amount,
    amount_captured: record.amountCaptured,
    amount_refunded: refunded,
    application: null,
    application_fee: null,
    application_fee_amount: null,
    balance_transaction: null,
    billing_details: { address: null, email: record.billingEmail, name: null, phone: null, tax_id: null },
    calculated_statement_descriptor: 'STRIPE STAND-IN',
    captured: record.captured,
    created: record.created,
    currency: record.currency,
    customer: null,
    description: null,
    disputed: false,
    failure_balance_transaction: null,
    failure_code: record.failure?.code ?? null,
    failure_message: record.failure?.message ?? null,
    fraud_details: {},
    livemode: false,
    metadata: { ...record.metadata },
    on_behalf_of: null,
    outcome: record.failure
      ? {
          advice_code: null,
          network_advice_code: null,
          network_decline_code: null,
          network_status: 'declined_by_network',
          reason: record.failure.declineCode,
          risk_level: 'normal',
          seller_message: 'The bank did not return any further details with this decline.',
          type: 'issuer_declined',
        }
      : {
          advice_code: null,
          network_advice_code: null,
          network_decline_code: null,
          network_status: 'approved_by_network',
          reason: null,
          risk_level: 'normal',
          seller_message: 'Payment complete.',
          type: 'authorized',
        },
    paid: record.status === 'succeeded',
    payment_intent: record.paymentIntentId,
    payment_method: record.paymentMethodId,
    payment_method_details: {
      type: 'card',
      card: {
        amount_authorized: record.failure ? null : record.amount,
        authorization_code: null,
        brand: card.brand,
        checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: 'pass' },
        country: 'US',
        electronic_commerce_indicator: null,
        exp_month: 12,
        exp_year: expYear,
        funding: 'credit',
        installments: null,
        last4: card.last4,
        mandate: null,
        network: card.brand,
        network_transaction_id: null,
        regulated_status: 'unregulated',
        three_d_secure: null,
        transaction_link_id: null,
        wallet: null,
      },
    },
    receipt_email: null,
    receipt_number: null,
    receipt_url: null,
    refunded: refunded === record.amount,
    review: null,
    shipping: null,
    source: null,
    source_transfer: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: record.status,
    transfer_data: null,
    transfer_group: null,
  };
}

/** The Refund as Stripe returns it (card refunds in test mode succeed at once). */
export function refundObject(record: RefundRecord): Stripe.Refund {
  return {
    id: record.id,
    object: 'refund',
    amount: record.amount,
    balance_transaction: null,
    charge: record.chargeId,
    created: record.created,
    currency: record.currency,
    customer: null,
    customer_account: null,
    destination_details: {
      type: 'card',
      card: { reference_status: 'pending', reference_type: 'acquirer_reference_number', type: 'refund' },
    },
    metadata: { ...record.metadata },
    payment_intent: record.paymentIntentId,
    payment_method: null,
    reason: record.reason,
    receipt_number: null,
    source_transfer_reversal: null,
    status: 'succeeded',
    transfer_reversal: null,
  };
}
