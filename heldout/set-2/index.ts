/**
 * Held-out set 2: faults and benign variants written from the interface document alone
 * (/work/shared/source/billing-service-interface.md), by someone who had not seen how the
 * tool tests (its suites, engine, rules file, catalog or docs); only the rule ids and their
 * statements (`conform rules`) were taken from the tool. Do not edit this set after it has
 * been measured: a held-out set tuned to the tool no longer measures anything.
 */
import type { CatalogFault } from '../../src/faults/catalog/types.ts';
import { heldoutSet2Benign } from './benign.ts';
import { heldoutSet2Faults } from './faults.ts';

export { heldoutSet2Benign, heldoutSet2Faults };

export const HELDOUT_SET_2: CatalogFault[] = [...heldoutSet2Faults, ...heldoutSet2Benign];
