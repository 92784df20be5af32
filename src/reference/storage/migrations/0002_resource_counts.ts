import type { Migration } from './index.ts';

/**
 * Row counts per (merchant, type), kept by a trigger so every write path (repository,
 * raw SQL) updates them: an unfiltered list reads its total here instead of counting
 * the merchant's rows on every page.
 */
export const resourceCounts: Migration = {
  version: 2,
  name: 'resource_counts',
  up: `
    CREATE TABLE resource_counts (
      merchant_id text NOT NULL,
      type text NOT NULL,
      n bigint NOT NULL,
      PRIMARY KEY (merchant_id, type)
    );
    CREATE FUNCTION resources_count() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE resource_counts SET n = n - 1 WHERE merchant_id = OLD.merchant_id AND type = OLD.type;
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO resource_counts AS c (merchant_id, type, n) VALUES (NEW.merchant_id, NEW.type, 1)
        ON CONFLICT (merchant_id, type) DO UPDATE SET n = c.n + 1;
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER resources_count AFTER INSERT OR DELETE OR UPDATE OF merchant_id, type ON resources
      FOR EACH ROW EXECUTE FUNCTION resources_count();
    INSERT INTO resource_counts (merchant_id, type, n) SELECT merchant_id, type, count(*) FROM resources GROUP BY merchant_id, type;
  `,
};
