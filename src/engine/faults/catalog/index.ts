/** The fault catalog: every fault and benign variant `conform faults` can inject. */
import { alertFaults } from './alerts.ts';
import { authFaults } from './auth.ts';
import { benignVariants } from './benign.ts';
import { catalogFaults } from './catalog.ts';
import { conventionFaults } from './conventions.ts';
import { customerFaults } from './customers.ts';
import { deleteBlockerFaults } from './delete-blockers.ts';
import { itemFaults } from './items.ts';
import { rateLimitFaults } from './rate-limits.ts';
import { refundPaymentFaults } from './refunds-payments.ts';
import { scheduleFaults } from './billing-schedules.ts';
import { migrationFaults } from './version-migration.ts';
import { webhookFaults } from './webhooks.ts';
import { FAMILIES, type CatalogFault, type FaultFamily } from './types.ts';

export {
  FAMILIES,
  type CatalogFault,
  type FaultFamily,
  type FaultDemo,
  type DemoOutcome,
  type DemoStep,
} from './types.ts';

/** Faults first (by family), then the benign variants. */
export const CATALOG: readonly CatalogFault[] = [
  ...authFaults,
  ...rateLimitFaults,
  ...migrationFaults,
  ...deleteBlockerFaults,
  ...webhookFaults,
  ...itemFaults,
  ...customerFaults,
  ...alertFaults,
  ...scheduleFaults,
  ...refundPaymentFaults,
  ...catalogFaults,
  ...conventionFaults,
  ...benignVariants,
];

export function faultByName(name: string): CatalogFault | undefined {
  return CATALOG.find((f) => f.name === name);
}

export function isFamily(name: string): name is FaultFamily {
  return (FAMILIES as readonly string[]).includes(name);
}
