import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The project root (where package.json is), found upwards from this file: src/platform under
 * ts-jest, dist/src/platform when built. Files the server reads beside its code (schema.gql,
 * the built web client) are found from here.
 */
export function projectRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}
