import type { Migration } from './index.ts';

/** Paging walks (merchant, type, seq) and needs only the id: a covering index allows index-only scans. */
export const coveringListIndex: Migration = {
  version: 3,
  name: 'covering_list_index',
  up: `
    CREATE INDEX resources_page ON resources (merchant_id, type, seq) INCLUDE (id);
    DROP INDEX resources_list;
  `,
};
