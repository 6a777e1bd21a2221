import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The files that took longest in a full run (29 November 2026, 03:00: a fresh clone, three at a time on this
// 2-core machine), slowest first. Vitest runs the files it has timed before slowest first; a fresh clone (CI)
// has no timings and ran larger files first, so one of these could start last and the suite waited on it alone.
// The timed project's files run after all of these whatever their rank (vitest.config.ts).
const SLOWEST = [
  'test/infra/fleet-git-diff.test.ts',
  'test/e2e/soak-control.test.ts',
  'test/review/stay-night-rotation.test.ts',
  'test/e2e/widget-flow.test.ts',
  'test/e2e/local-runner-leaks.test.ts',
  'test/e2e/widget-links.test.ts',
  'test/e2e/widget-refusals.test.ts',
  'test/e2e/webhooks.test.ts',
  'test/e2e/local-runner.test.ts',
  'test/infra/review-fleet-findings.test.ts',
  'test/e2e/widget-expiry.test.ts',
  'test/e2e/widget-touch.test.ts',
  'test/infra/fleet-deploy.test.ts',
  'test/integration/payments-reconcile-property.test.ts',
  'test/e2e/widget-payment.test.ts',
  'test/review/concurrent-sync-state.test.ts',
  'test/integration/webhook-attacks-safety.test.ts',
  'test/e2e/widget-results.test.ts',
  'test/e2e/book-page-browser.test.ts',
  'test/e2e/openapi-fuzz.test.ts',
  'test/unit/calendar-reference.test.ts',
  'test/e2e/widget-demo.test.ts',
  'test/review/conflict-events-per-round.test.ts',
  'test/e2e/extreme-dates.test.ts',
  'test/e2e/docs-page.test.ts',
];

/** Vitest's order, except that the slowest files start first when vitest has no timings of its own. */
export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const path = file.moduleId.slice(this.ctx.config.root.length + 1);
      const known = this.ctx.cache.getFileTestResults(`${file.project.name}:${path}`);
      const index = SLOWEST.indexOf(path);
      return known || index < 0 ? SLOWEST.length : index;
    };
    return sorted
      .map((file, order) => ({ file, order, rank: rank(file) }))
      .sort((a, b) => a.rank - b.rank || a.order - b.order)
      .map(({ file }) => file);
  }
}
