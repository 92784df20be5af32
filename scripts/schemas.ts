/**
 * npm run schemas — writes schemas/config.schema.json and schemas/fixtures.schema.json from
 * the schemas the CLI validates with (src/engine/published-schemas.ts), and the fixture
 * table and the method reference of docs/fixtures.md from the fixture methods' declarations.
 * Tests compare the committed files with the code.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { publishedSchemas, SCHEMA_FILES, type PublishedSchema } from '../src/engine/published-schemas.ts';
import { fixtureTable, methodReference } from '../src/engine/fixtures/table.ts';

const FIXTURE_TABLE_BLOCK = /(<!-- fixture-table:[^\n]*-->\n)[\s\S]*?(\n<!-- \/fixture-table -->)/;
const METHOD_REFERENCE_BLOCK = /(<!-- method-reference:[^\n]*-->\n)[\s\S]*?(\n<!-- \/method-reference -->)/;

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
  const docs = new URL('../docs/fixtures.md', import.meta.url);
  writeFileSync(
    docs,
    readFileSync(docs, 'utf8')
      .replace(FIXTURE_TABLE_BLOCK, (_, open, close) => open + fixtureTable() + close)
      .replace(METHOD_REFERENCE_BLOCK, (_, open, close) => open + methodReference() + close),
  );
  console.log('wrote the fixture table and the method reference of docs/fixtures.md');
}
