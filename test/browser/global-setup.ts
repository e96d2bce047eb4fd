// The browser tier's setup: the shared test database (test/support/global-setup.ts), and the
// web client built into dist/web, which the booted app serves at /app.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import sharedSetup from '../support/global-setup';

export default async function globalSetup(): Promise<void> {
  await sharedSetup();
  const root = join(__dirname, '..', '..');
  const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');
  const r = spawnSync(process.execPath, [vite, 'build', '--config', join(root, 'web', 'vite.config.mjs')], {
    cwd: root,
    stdio: 'inherit',
    // why: jest sets NODE_ENV=test, which would give React's development build.
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (r.status !== 0) throw new Error(`building the web client failed (exit ${r.status})`);
}
