import type { ResourcePlugin } from '../http/plugin.ts';
import { apiKeysPlugin } from './apiKeys.ts';
import { merchantsPlugin } from './merchants.ts';
import { rateLimitedPlugin } from './rateLimited.ts';

/** Every resource group of the reference server, registered in this order. Add one line per plugin. */
export const plugins: ResourcePlugin[] = [
  merchantsPlugin,
  apiKeysPlugin,
  rateLimitedPlugin,
];
