/**
 * npm run schemas — writes schemas/config.schema.json and schemas/fixtures.schema.json from
 * the schemas the CLI validates with (src/engine/config/published-schemas.ts). Tests compare
 * the committed files with the code.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { publishedSchemas, SCHEMA_FILES, type PublishedSchema } from '../src/engine/config/published-schemas.ts';

/** The text each schema file must hold, by path relative to the package root. */
export function schemaTexts(): Record<string, string> {
  const docs = publishedSchemas();
  const out: Record<string, string> = {};
  for (const name of Object.keys(SCHEMA_FILES) as PublishedSchema[])
    out[SCHEMA_FILES[name]] = `${JSON.stringify(docs[name], null, 2)}\n`;
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const [path, text] of Object.entries(schemaTexts())) {
    writeFileSync(new URL(`../${path}`, import.meta.url), text);
    console.log(`wrote ${path}`);
  }
}
