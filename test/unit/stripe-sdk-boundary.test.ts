import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The `stripe` SDK stays out of the product's bundles: nothing under lib/ or functions/ imports it statically
// (issue 43's adapter will load it lazily, with `await import('stripe')`; a type-only import is erased), and
// nothing there imports the stand-in, which is local test infrastructure (docs/payments-stand-in.md).

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|tsx|js|mjs)$/.test(name) ? [path] : [];
  });

const STATIC_SDK =
  /^\s*(?:import(?!\s+type\b)[^'"]*?from\s*|import\s*|export[^'"]*?from\s*)['"]stripe(?:\/[^'"]*)?['"]/m;
const STAND_IN = /['"]#infra\/local\/stripe\/[^'"]*['"]|['"][./]*infra\/local\/stripe\/[^'"]*['"]/;
const forbidden = (text: string) => STATIC_SDK.test(text) || STAND_IN.test(text);

describe('the Stripe SDK boundary', () => {
  it('has no file under lib/ or functions/ import the stripe SDK statically, or the stand-in at all', () => {
    const offenders = ['lib', 'functions']
      .flatMap(sources)
      .filter((file) => forbidden(readFileSync(file, 'utf8')));
    expect(offenders).toEqual([]);
  });

  it.each([
    ["import Stripe from 'stripe';", true],
    ["import { Stripe } from 'stripe';", true],
    ["import 'stripe';", true],
    ["export { default } from 'stripe';", true],
    ["import { startStripeStandIn } from '#infra/local/stripe/index.ts';", true],
    ["import type Stripe from 'stripe';", false],
    ["const { default: Stripe } = await import('stripe');", false],
    ["import { stripeIds } from './stripe-ids.ts';", false],
  ])('judges %s (forbidden: %s)', (line, expected) => {
    expect(forbidden(line)).toBe(expected);
  });
});
