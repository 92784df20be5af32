/** The state model: what the run's resources must look like after each documented operation, judged over generated sequences. */
export { runModel, MODEL_BOUNDS, type StateModel, type ModelBounds } from './run.ts';
export { customersModel, CUSTOMERS_MODEL_PARTS } from './customers.ts';
export { itemsPricesModel, ITEMS_PRICES_MODEL_PARTS } from './items-prices.ts';
export { alertsModel, ALERTS_MODEL_PARTS } from './alerts.ts';
export { migrationsModel, MIGRATIONS_MODEL_PARTS } from './migrations.ts';
export { resourcesModel, drivenResources, type Driven } from './resources.ts';
