// A fixtures module that logs when it is created, used and closed (to CLEANUP_LOG), for the engine's own tests.
import { appendFileSync } from 'node:fs';

const log = (line) => appendFileSync(process.env.CLEANUP_LOG, `${line}\n`);

export default function createFixtures() {
  log('create');
  return {
    async customer() {
      log('use');
      return { customerId: 'cus_demo1' };
    },
    async close() {
      log('close');
    },
  };
}
