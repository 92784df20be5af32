// Preloaded (node --import) into a `conform` process during Stryker's dry run: at exit it
// writes the instrumented reference's mutant coverage to $CONFORM_MUTANT_COVERAGE, so the
// runner learns which mutants each suite reaches. The reference itself knows nothing of it.
import { writeFileSync } from 'node:fs';

const file = process.env.CONFORM_MUTANT_COVERAGE;
if (file) {
  process.on('exit', () => {
    const coverage = globalThis.__stryker__?.mutantCoverage ?? { static: {}, perTest: {} };
    writeFileSync(file, JSON.stringify(coverage));
  });
}
