import type { ResourcePlugin } from '../http/plugin.ts';
import { apiKeysPlugin } from './apiKeys.ts';
import { merchantsPlugin } from './merchants.ts';
import { productsItemsPlugin } from './products-items.ts';
import { costsPlugin } from './costs.ts';
import { customersPlugin } from './customers.ts';
import { eventsPlugin } from './events.ts';
import { integrationsPlugin } from './integrations.ts';
import { invoicesPlugin } from './invoices.ts';
import { ordersPlugin } from './orders.ts';
import { paymentsPlugin } from './payments.ts';
import { plansPlugin } from './plans.ts';
import { pricingPlugin } from './pricing.ts';
import { sourcesPlugin } from './sources.ts';
import { subscriptionsPlugin } from './subscriptions.ts';
import { testClocksPlugin } from './testClocks.ts';
import { walletsPlugin } from './wallets.ts';
import { webhooksPlugin } from './webhooks.ts';

/** Every resource group of the reference server, registered in this order. Add one line per plugin. */
export const plugins: ResourcePlugin[] = [
  merchantsPlugin,
  apiKeysPlugin,
  webhooksPlugin,
  customersPlugin,
  productsItemsPlugin,
  pricingPlugin,
  plansPlugin,
  subscriptionsPlugin,
  testClocksPlugin,
  invoicesPlugin,
  paymentsPlugin,
  sourcesPlugin,
  walletsPlugin,
  ordersPlugin,
  eventsPlugin,
  costsPlugin,
  integrationsPlugin,
];
