/**
 * The JSON Schemas published in schemas/ for editors and other tools, built from the very
 * schemas the CLI validates with, so they cannot drift (`npm run schemas` writes them; a test
 * compares). A YAML file opts in with a first line such as
 * `# yaml-language-server: $schema=node_modules/billing-conform/schemas/fixtures.schema.json`.
 */
import { fixturesFileSchema } from './fixtures/file/document.ts';
import { configSchema } from './config/schema.ts';

/** Each published schema's path, relative to the package root. */
export const SCHEMA_FILES = {
  config: 'schemas/config.schema.json',
  fixtures: 'schemas/fixtures.schema.json',
} as const;

export type PublishedSchema = keyof typeof SCHEMA_FILES;

const HEADERS: Record<PublishedSchema, { title: string; description: string }> = {
  config: {
    title: 'billing-conform configuration (conform.config.yaml)',
    description:
      'Settings of `conform run` (docs/config.md). API keys are named by environment variable, never written here.',
  },
  fixtures: {
    title: 'billing-conform fixtures file (fixtures strategy `file`)',
    description: 'Ids of resources pre-seeded in the target, which the scenarios use (docs/fixtures.md).',
  },
};

/** The documents to write into schemas/, by name. */
export function publishedSchemas(): Record<PublishedSchema, Record<string, unknown>> {
  const publish = (name: PublishedSchema, schema: Record<string, unknown>) => {
    const { $schema, ...rest } = schema;
    return { $schema, $id: `https://billing-conform.local/${SCHEMA_FILES[name]}`, ...HEADERS[name], ...rest };
  };
  return { config: publish('config', configSchema), fixtures: publish('fixtures', fixturesFileSchema) };
}
