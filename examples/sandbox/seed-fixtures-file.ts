/**
 * Seeds a sandbox for the file strategy: creates, through the same back office as
 * conform.fixtures.ts, every resource a fixtures file lists, enough for N runs, and writes
 * the file (and the keys it names, in an env file readable by you alone). Use it when the
 * suite should run from pre-seeded ids instead of creating fixtures itself:
 *
 *   export BILLING_API_KEY=...  CONFORM_ADMIN_URL=https://backoffice.sandbox.example.com  CONFORM_ADMIN_KEY=...
 *   npx tsx seed-fixtures-file.ts --base-url https://sandbox.example.com --runs 2
 *   set -a; . ./conform.fixtures.env; set +a
 *   npx conform run --config conform.file.config.yaml
 *   npx conform fixtures check --config conform.file.config.yaml   # runs left
 *
 * The sandbox here has only the documented endpoints, so the file names no `remove`
 * requests that need others (cancelling a subscription, deleting a price, archiving a
 * metric) and no readPaths.subscription: the scenarios needing them are not judged,
 * saying so (docs/fixtures.md lists them).
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { stringify } from 'yaml';
import {
  fileKeyNamed,
  MIGRATION_CONFLICT_KINDS,
  minimumEntries,
  type Fixtures,
} from '../../src/engine/fixtures/index.ts';
import { HttpClient } from '../../src/engine/http/index.ts';
import { moduleContext } from '../../src/engine/fixtures/module.ts';
import { registerSecret } from '../../src/engine/http/redact.ts';
import type { FixtureModuleContext } from 'billing-conform/fixtures';
import createFixtures from './conform.fixtures.ts';

/** Entries for `runs` runs: the catalog's minimum, and a few more of what scenarios share, so they seldom take turns. */
const count = (key: string, runs: number, spread = 1) => Math.max(minimumEntries(fileKeyNamed(key)!, runs), spread);
const times = async <T>(n: number, make: () => Promise<T>): Promise<T[]> => {
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(await make());
  return out;
};

export interface Seeded {
  /** The fixtures file's content. */
  file: Record<string, unknown>;
  /** The keys it names: environment variable → key. */
  env: Record<string, string>;
}

/** Creates what `runs` runs of every suite need and returns the fixtures file naming it. */
export async function seed(f: Partial<Fixtures> & Pick<Fixtures, 'merchant'>, runs: number): Promise<Seeded> {
  const need = <K extends keyof Fixtures>(m: K) => {
    const fn = f[m];
    if (typeof fn !== 'function') throw new Error(`the fixtures module has no ${String(m)}()`);
    return fn as Fixtures[K];
  };
  const env: Record<string, string> = {};
  const named = (name: string, key: string) => ((env[name] = key), name);
  const { merchantId } = await f.merchant();
  const second = await need('secondKeySameMerchant')();
  // Rate-limit scenarios use up these merchants' and subscriptions' buckets for a window: with
  // a few spare, concurrent scenarios each get their own and a rerun within the window finds fresh ones.
  const others = await times(6, () => need('otherMerchantKey')());
  const forbidden = await need('forbiddenAction')();
  const noWebhooks = await need('merchantWithoutWebhooks')();
  const unmanaged = await need('unmanagedMerchant')();
  const { endpoints } = await need('webhooksEnabled')();
  const blocked = async (
    m: 'customerWithSubscriptions' | 'feeWithPrices' | 'itemWithAnchoredFee' | 'itemWithAnchoredMetric',
  ) =>
    (await times(count(m, runs), () => need(m)())).map((b) => ({
      id: b.id,
      dependants: b.dependants,
      // DELETE /v0/fees/{id} is documented; cancelling subscriptions, deleting prices and archiving metrics are not.
      ...(m === 'itemWithAnchoredFee'
        ? { remove: b.dependants.fees.map((id) => ({ method: 'DELETE', path: `/v0/fees/${encodeURIComponent(id)}` })) }
        : {}),
    }));
  const strip = <T extends { versionPolicy?: unknown }>(m: T) => {
    const { versionPolicy: _, ...rest } = m;
    return rest;
  };
  const conflicts: Record<string, unknown> = {};
  for (const kind of MIGRATION_CONFLICT_KINDS) conflicts[kind] = await need('migrationConflict')(kind);
  const file = {
    version: 1,
    merchantId,
    secondKeySameMerchant: { keyEnv: named('BILLING_SECOND_KEY', second.key) },
    otherMerchantKey: others.map((o, i) => ({
      keyEnv: named(`BILLING_OTHER_MERCHANT_KEY_${i + 1}`, o.key),
      merchantId: o.merchantId,
    })),
    revokedKey: { keyEnv: named('BILLING_REVOKED_KEY', await need('revokedKey')()) },
    forbiddenAction: {
      keyEnv: named('BILLING_READ_ONLY_KEY', forbidden.key),
      method: forbidden.method,
      path: forbidden.path,
      ...(forbidden.body !== undefined ? { body: forbidden.body } : {}),
    },
    merchantWithoutWebhooks: {
      keyEnv: named('BILLING_NO_WEBHOOKS_KEY', noWebhooks.key),
      merchantId: noWebhooks.merchantId,
    },
    unmanagedMerchant: { keyEnv: named('BILLING_UNMANAGED_KEY', unmanaged.key), merchantId: unmanaged.merchantId },
    webhookEndpoints: endpoints,
    customer: (await times(count('customer', runs, 3), () => need('customer')())).map((c) => c.customerId),
    customerWithSubscriptions: await blocked('customerWithSubscriptions'),
    feeWithPrices: await blocked('feeWithPrices'),
    item: await times(count('item', runs, 2), () => need('item')()),
    itemWithAnchoredFee: await blocked('itemWithAnchoredFee'),
    itemWithAnchoredMetric: await blocked('itemWithAnchoredMetric'),
    itemWithPrimaryReference: await times(count('itemWithPrimaryReference', runs), () =>
      need('itemWithPrimaryReference')(),
    ),
    migration: {
      floating: (await times(count('migration.floating', runs), () => need('migration')('floating'))).map(strip),
      pinned: (await times(count('migration.pinned', runs), () => need('migration')('pinned'))).map(strip),
    },
    migrationConflict: conflicts,
    wallet: (await times(count('wallet', runs, 2), () => need('wallet')())).map((w) => w.walletId),
    walletWithAlerts: await times(count('walletWithAlerts', runs, 2), () => need('walletWithAlerts')(11)),
    order: (await times(count('order', runs, 2), () => need('order')())).map((o) => o.orderId),
    subscription: (await times(count('subscription', runs, 2), () => need('subscription')())).map(
      (s) => s.subscriptionId,
    ),
    subscriptions: await need('subscriptions')(8),
    scheduleWithIntervals: await times(count('scheduleWithIntervals', runs), () => need('scheduleWithIntervals')(3)),
    paidInvoice: await times(count('paidInvoice', runs), () => need('paidInvoice')()),
    unrefundableInvoice: (await need('unrefundableInvoice')()).invoiceId,
    payment: (await need('payment')()).paymentId,
    prices: await need('prices')(),
    feeWithoutPrices: (await need('feeWithoutPrices')()).feeId,
    sourceRule: (await times(2, () => need('sourceRule')())).map((r) => r.ruleId),
    crmProvider: await need('crmProvider')(),
    invoiceLineItemsBody: await need('invoiceLineItemsBody')(),
  };
  return { file, env };
}

export function fixturesYaml(s: Seeded, runs: number): string {
  return `# Seeded by seed-fixtures-file.ts for ${runs} run${runs === 1 ? '' : 's'} (${new Date().toISOString()}); keys are in conform.fixtures.env\n${stringify(s.file, { lineWidth: 0 })}`;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'base-url': { type: 'string' },
      runs: { type: 'string' },
      out: { type: 'string' },
      env: { type: 'string' },
    },
  });
  const apiKey = process.env.BILLING_API_KEY;
  const baseUrl = values['base-url'];
  if (!apiKey || !baseUrl || !process.env.CONFORM_ADMIN_URL || !process.env.CONFORM_ADMIN_KEY)
    throw new Error('set BILLING_API_KEY, CONFORM_ADMIN_URL and CONFORM_ADMIN_KEY, and pass --base-url');
  const runs = Number(values.runs ?? 2);
  registerSecret(apiKey, 'BILLING_API_KEY');
  const http = new HttpClient({ baseUrl, apiKey, apiKeyLabel: 'BILLING_API_KEY' });
  // The engine's client, as `conform run` hands it to the module.
  const fixtures = await createFixtures(
    moduleContext({
      baseUrl,
      apiKey,
      http,
      registerSecret: (v) => registerSecret(v),
    }) as unknown as FixtureModuleContext,
  );
  const seeded = await seed(fixtures as Parameters<typeof seed>[0], runs);
  const out = values.out ?? 'conform.fixtures.yaml';
  const envFile = values.env ?? 'conform.fixtures.env';
  await writeFile(out, fixturesYaml(seeded, runs));
  await writeFile(
    envFile,
    `${Object.entries(seeded.env)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n')}\n`,
    { mode: 0o600 },
  );
  console.log(`wrote ${out} (${runs} runs) and ${envFile} (the keys it names; keep it secret)`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err) => {
    console.error(`seed-fixtures-file: ${(err as Error).message}`);
    process.exitCode = 2;
  });
}
