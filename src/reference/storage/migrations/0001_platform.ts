import type { Migration } from './index.ts';

/** Merchants, API keys (sha256 of the secret only), generic resources, rate-limit buckets. */
export const platformV1: Migration = {
  version: 1,
  name: 'platform',
  up: `
    CREATE TABLE merchants (
      id text PRIMARY KEY,
      parent_id text REFERENCES merchants(id),
      data jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX merchants_parent ON merchants (parent_id);

    CREATE TABLE api_keys (
      id text PRIMARY KEY,
      merchant_id text NOT NULL REFERENCES merchants(id),
      name text,
      scope text NOT NULL,
      secret_sha256 text NOT NULL UNIQUE,
      secret_hint text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      revoked_at timestamptz
    );
    CREATE INDEX api_keys_merchant ON api_keys (merchant_id);

    CREATE TABLE resources (
      id text PRIMARY KEY,
      merchant_id text NOT NULL,
      type text NOT NULL,
      data jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      seq bigserial NOT NULL
    );
    CREATE INDEX resources_list ON resources (merchant_id, type, seq);
    CREATE INDEX resources_data ON resources USING gin (data jsonb_path_ops);

    CREATE TABLE rate_buckets (
      key text PRIMARY KEY,
      window_start bigint NOT NULL,
      window_ms integer NOT NULL,
      count integer NOT NULL
    );
  `,
};
