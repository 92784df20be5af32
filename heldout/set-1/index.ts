/**
 * Held-out set 1 (`npm run faults:heldout -- --set set-1`): faults written from the interface
 * document alone, on the properties every resource shares (a value sent reads back as sent,
 * deleted means gone, owned by the key's merchant, lists walk cleanly, derived amounts keep
 * their unit), by someone who had not read the scenario suites. Nothing here was tuned against
 * the suites: they run every suite, and their figures are reported apart from the hand and
 * generated catalogs. Changing a fault here to make the suites catch it defeats its purpose; a
 * fault the suites miss is a finding about the suites.
 */
import type { CatalogFault } from '../../src/faults/catalog/types.ts';
import { heldoutFaults } from './faults.ts';
import { heldoutBenign } from './benign.ts';

export { heldoutFaults, heldoutBenign };
export const HELDOUT_SET_1: readonly CatalogFault[] = [...heldoutFaults, ...heldoutBenign];
