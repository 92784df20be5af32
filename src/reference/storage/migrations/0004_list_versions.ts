import type { Migration } from './index.ts';

/**
 * A version per (merchant, type), bumped by the same trigger on every insert, delete or
 * move: the repository caches a merchant's ordered ids under it, so a deep page is a
 * slice plus a primary-key fetch instead of a walk over every skipped row.
 */
export const listVersions: Migration = {
  version: 4,
  name: 'list_versions',
  up: `
    ALTER TABLE resource_counts ADD COLUMN version bigint NOT NULL DEFAULT 0;
    CREATE OR REPLACE FUNCTION resources_count() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE resource_counts SET n = n - 1, version = version + 1 WHERE merchant_id = OLD.merchant_id AND type = OLD.type;
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO resource_counts AS c (merchant_id, type, n, version) VALUES (NEW.merchant_id, NEW.type, 1, 1)
        ON CONFLICT (merchant_id, type) DO UPDATE SET n = c.n + 1, version = c.version + 1;
      END IF;
      RETURN NULL;
    END $$;
  `,
};
