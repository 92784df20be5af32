/**
 * npm run schemas — writes schemas/config.schema.json and schemas/fixtures.schema.json from
 * the schemas the CLI validates with (src/engine/config/published-schemas.ts).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { publishedSchemas, SCHEMA_FILES, type PublishedSchema } from '../src/engine/config/published-schemas.ts';

const ROOT = new URL('../', import.meta.url);

/** The text each schema file must hold. */
export function schemaTexts(): Record<PublishedSchema, string> {
  const docs = publishedSchemas();
  return { config: `${JSON.stringify(docs.config, null, 2)}\n`, fixtures: `${JSON.stringify(docs.fixtures, null, 2)}\n` };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const texts = schemaTexts();
  for (const name of Object.keys(SCHEMA_FILES) as PublishedSchema[]) {
    writeFileSync(new URL(SCHEMA_FILES[name], ROOT), texts[name]);
    console.log(`wrote ${SCHEMA_FILES[name]}`);
  }
}
