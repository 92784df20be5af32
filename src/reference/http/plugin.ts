import type { FastifyPluginAsync } from 'fastify';
import type { RateLimitRule } from '../ratelimit/limits.ts';
import type { Db } from '../storage/db.ts';
import type { Migration } from '../storage/migrations/index.ts';
import type { Repository } from '../storage/repository.ts';
import type { Contract } from './contract.ts';

/** What every resource plugin receives as its options. */
export interface PluginDeps {
  db: Db;
  repo: Repository;
  contract: Contract;
  /** Rate limits in force (published, raised by configuration). */
  rateLimits: Map<string, RateLimitRule>;
  /** The server clock (tests may inject one). */
  now: () => Date;
}

/** One resource group: its routes, and the schema changes it needs (versions >= 100). */
export interface ResourcePlugin {
  name: string;
  register: FastifyPluginAsync<PluginDeps>;
  migrations?: Migration[];
}
