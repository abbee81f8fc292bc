import type { Migration } from 'kysely';
import * as m0001 from './0001_core.js';

/** Every migration, in order. A static list: bundlers and tsx need no directory scan. */
export const migrations: Record<string, Migration> = {
  '0001_core': m0001,
};
