import { loadConfig } from '../config.js';
import { migrateWithLock } from './migrate.js';

const config = loadConfig();
try {
  await migrateWithLock(config.DATABASE_URL);
  process.stdout.write('migrations applied\n');
} catch (error) {
  process.stderr.write(`migration failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
