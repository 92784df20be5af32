/** The fault catalog: every fault and benign variant `conform faults` can inject. */
import { alertFaults } from './alerts.ts';
import { authFaults } from './auth.ts';
import { benignVariants } from './benign.ts';
import { catalogFaults } from './merchants-products.ts';
import { conventionFaults } from './conventions.ts';
import { customerFaults } from './customers.ts';
import { deleteBlockerFaults } from './delete-blockers.ts';
import { itemFaults } from './items.ts';
import { rateLimitFaults } from './rate-limits.ts';
import { refundPaymentFaults } from './refunds-payments.ts';
import { scheduleFaults } from './billing-schedules.ts';
import { migrationFaults } from './version-migration.ts';
import { webhookFaults } from './webhooks.ts';
import { relationFaults } from './relations.ts';
import { FAULT_AREAS, type CatalogFault, type FaultArea } from './types.ts';

export {
  FAULT_AREAS,
  type CatalogFault,
  type FaultArea,
  type FaultDemo,
  type DemoOutcome,
  type DemoStep,
} from './types.ts';

/** Faults first (by area), then the benign variants. */
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
  ...relationFaults,
  ...benignVariants,
];

export function faultByName(name: string): CatalogFault | undefined {
  return CATALOG.find((f) => f.name === name);
}

export function isFaultArea(name: string): name is FaultArea {
  return (FAULT_AREAS as readonly string[]).includes(name);
}
