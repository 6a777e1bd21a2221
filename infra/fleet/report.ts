import { relative } from 'node:path';
import type { FleetDiff, TenantDiff } from './diff.ts';
import type { SynthResult } from './synth.ts';
import type { ResourceChange } from './template-diff.ts';
import type { DeployReport } from './waves.ts';

/** Columns padded to their widest cell; numbers right-aligned. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const numeric = header.map(
    (_, column) => rows.length > 0 && rows.every((row) => /^\d+$/.test(row[column] ?? '')),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        numeric[column] ? cell.padStart(widths[column] ?? 0) : cell.padEnd(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

const firstLine = (text: string | undefined) => (text ?? '').split('\n')[0] ?? '';

/** What `synth` printed: a row per tenant, then each failure in full. */
export function formatSynth(results: SynthResult[], outDir: string, cwd = process.cwd()): string {
  const rows = results.map((result) =>
    result.ok
      ? [result.name, result.stackName, 'ok', relative(cwd, result.templateFile)]
      : [
          result.name,
          '',
          result.invalidTenant ? 'invalid tenant file' : 'synth failed',
          firstLine(result.message),
        ],
  );
  const failures = results.flatMap((result) => (result.ok ? [] : [`\n${result.name}: ${result.message}`]));
  const ok = results.filter((result) => result.ok).length;
  return [
    formatTable(['tenant', 'stack', 'result', 'template / problem'], rows),
    ...failures,
    `\n${ok} of ${results.length} synthesised into ${outDir}.`,
  ].join('\n');
}

const atRisk = (tenant: TenantDiff): string => {
  if (tenant.status === 'renamed') return `whole stack: ${tenant.previousStack} keeps the data`;
  return (tenant.changes?.dangerous ?? [])
    .map((change) => `${change.logicalId} (${change.impact})`)
    .join(', ');
};

const describeChange = (change: ResourceChange): string => {
  const notes = [
    change.stateful ? `STATEFUL: ${change.stateful}` : '',
    change.addedInstead ? `renamed? added instead: ${change.addedInstead.join(', ')}` : '',
    change.weakened ? `AT RISK: ${change.weakened}` : '',
  ].filter(Boolean);
  return `  ${change.kind.padEnd(8)}  ${change.impact.padEnd(12)}  ${change.logicalId}  ${change.type}${notes.length ? `  ${notes.join('; ')}` : ''}`;
};

/** The details of one tenant: every changed resource, or why there is nothing to compare. */
function tenantDetails(tenant: TenantDiff): string[] {
  const title = `${tenant.name}${tenant.stackName ? ` (${tenant.stackName})` : ''}`;
  const renamed = tenant.previousFile
    ? [
        `${title}: built from ${tenant.previousFile}.json in the baseline (the file was renamed; same tenant id).`,
      ]
    : [];
  switch (tenant.status) {
    case 'unchanged':
      return renamed;
    case 'invalid':
    case 'failed':
      return [
        `${title}: ${tenant.status === 'invalid' ? 'invalid tenant file' : 'failed'}:`,
        tenant.message ?? '',
      ];
    case 'new':
    case 'renamed': {
      const stateful = (tenant.changes?.changes ?? [])
        .filter((change) => change.stateful)
        .map((c) => c.logicalId);
      const head =
        tenant.status === 'renamed'
          ? `${title}: the tenant id in ${tenant.name}.json changed. ${tenant.previousStack} (built from this file ` +
            'in the baseline) would keep running with the bookings, and this new stack would start with an empty ' +
            'table. Keep the old tenant id, or move the data first.'
          : `${title}: a new stack.`;
      return [
        head,
        `  ${tenant.changes?.counts.added ?? 0} resources to create; stateful: ${stateful.join(', ') || 'none'}`,
      ];
    }
    case 'changed':
      return [...renamed, `${title}:`, ...(tenant.changes?.changes ?? []).map(describeChange)];
  }
}

/** What `diff` printed: the baseline, a row per tenant, each tenant's changes, and the verdict. */
export function formatDiff(diff: FleetDiff): string {
  const rows = diff.tenants.map((tenant) => {
    const counts = tenant.changes?.counts;
    const count = (n: number | undefined) => (counts ? String(n ?? 0) : '-');
    return [
      tenant.name,
      tenant.stackName ?? '',
      tenant.status,
      count(counts?.added),
      count(counts?.changed),
      count(counts?.replaced),
      count(counts?.removed),
      atRisk(tenant),
    ];
  });
  const details = diff.tenants.map(tenantDetails).filter((lines) => lines.length > 0);
  const orphans = diff.orphans.map(
    (orphan) =>
      `${orphan.stackName}: in the baseline, but no tenant file builds it now` +
      `${orphan.tenantFile ? ` (it came from ${orphan.tenantFile}.json)` : ''}; the fleet leaves it running.`,
  );
  const blocked = diff.tenants.filter((tenant) => tenant.blocked).map((tenant) => tenant.name);
  const failed = diff.tenants
    .filter((tenant) => tenant.status === 'invalid' || tenant.status === 'failed')
    .map((tenant) => tenant.name);
  const verdict = [
    blocked.length > 0
      ? `STATEFUL DATA AT RISK in ${blocked.join(', ')}: a stateful resource would be replaced, destroyed, orphaned or unprotected, a secret's value written anew, or a stack renamed.`
      : '',
    failed.length > 0 ? `NOT DIFFED: ${failed.join(', ')}.` : '',
    blocked.length === 0 && failed.length === 0
      ? 'No stateful resource is replaced, destroyed or orphaned.'
      : '',
  ].filter(Boolean);
  return [
    `Baseline: ${diff.baseline}`,
    `Stage: ${diff.stage}`,
    '',
    formatTable(
      ['tenant', 'stack', 'status', 'added', 'changed', 'replaced', 'removed', 'stateful at risk'],
      rows,
    ),
    ...details.flatMap((lines) => ['', ...lines]),
    ...(orphans.length > 0 ? ['', ...orphans] : []),
    '',
    ...verdict,
  ].join('\n');
}

/** What `deploy` printed after the waves: a row per stack, and why the fleet stopped. */
export function formatDeploy(report: DeployReport): string {
  const rows = report.outcomes.map((outcome) => [
    outcome.name,
    outcome.stackName,
    String(outcome.wave),
    outcome.status,
    outcome.detail,
  ]);
  const deployed = report.outcomes.filter(
    (outcome) => outcome.status !== 'failed' && outcome.status !== 'skipped',
  );
  return [
    formatTable(['tenant', 'stack', 'wave', 'status', 'detail'], rows),
    '',
    report.stopped
      ? `STOPPED: ${report.stopped}. ${deployed.length} of ${report.outcomes.length} stacks deployed.`
      : `All ${report.outcomes.length} stacks deployed, their alarms quiet after the bake.`,
  ].join('\n');
}
