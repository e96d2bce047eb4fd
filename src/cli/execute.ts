import { AppConfig, ConfigError, loadConfig } from '../config/app-config';
import { DataDirPermissionError } from '../platform/database/data-dir';
import { DataDirBusyError } from '../platform/database/pglite';
import type { CliCommand } from './args';
import { createToken } from './commands/token-create';
import { listTokens, revokeTokens } from './commands/token-manage';
import { createUser } from './commands/user-create';
import { listUsers } from './commands/user-list';
import { addGroupMapping, listGroupMappings } from './commands/group-map';
import { seedDemoData } from './commands/seed-demo';
import { CommandOutcome, workerStatus } from './commands/status';
import { runWebhookCommand } from './commands/webhooks';
import { CliDatabase, openCliDatabase } from './database';
import { CliFailure, CliIo, EXIT_FAILED, EXIT_OK } from './failure';

/** The commands that work on the database (all but help). */
export type DatabaseCommand = Exclude<CliCommand, { kind: 'help' }>;

const done = (lines: readonly string[]): CommandOutcome => ({ lines, exitCode: EXIT_OK });

async function dispatch(cmd: DatabaseCommand, db: CliDatabase, config: AppConfig): Promise<CommandOutcome> {
  switch (cmd.kind) {
    case 'user-create':
      return done(await createUser(db.dataSource, cmd));
    case 'user-list':
      return done(await listUsers(db.dataSource));
    case 'group-map-list':
      return done(await listGroupMappings(db.dataSource));
    case 'group-map-add':
      return done(await addGroupMapping(db.dataSource, cmd));
    case 'token-create':
      return done(await createToken(db.dataSource, cmd));
    case 'token-list':
      return done(await listTokens(db.dataSource, cmd));
    case 'token-revoke':
      return done(await revokeTokens(db.dataSource, cmd));
    case 'seed-demo':
      return done(await seedDemoData(db, config.dataDir));
    case 'status':
      return workerStatus(db, config, cmd.json);
    case 'webhook-add':
    case 'webhook-list':
    case 'webhook-update':
    case 'webhook-remove':
    case 'webhook-rotate':
    case 'webhook-deliveries':
    case 'webhook-replay':
      return done(await runWebhookCommand(db.dataSource, config, cmd));
  }
}

async function onDatabase(cmd: DatabaseCommand, config: AppConfig, io: CliIo): Promise<number> {
  const db = await openCliDatabase(config, (line) => io.out(line));
  let outcome: CommandOutcome;
  try {
    outcome = await dispatch(cmd, db, config);
  } finally {
    await db.close();
  }
  // why: printed only after the database is closed, so nothing (a close-time message, say)
  // can follow the token that `token create` prints on its last line.
  for (const line of outcome.lines) io.out(line);
  return outcome.exitCode;
}

/**
 * Runs a parsed command against the configured database and returns the exit code. Expected
 * failures (ConfigError naming the variable, DataDirBusyError while a server holds DATA_DIR,
 * CliFailure) print their message alone; anything else prints its stack. Never throws.
 */
export async function executeCommand(
  cmd: DatabaseCommand,
  env: NodeJS.ProcessEnv,
  io: CliIo,
): Promise<number> {
  try {
    return await onDatabase(cmd, loadConfig(env), io);
  } catch (e) {
    if (
      e instanceof ConfigError ||
      e instanceof DataDirBusyError ||
      e instanceof DataDirPermissionError ||
      e instanceof CliFailure
    ) {
      io.err(`error: ${e.message}`);
    } else {
      io.err(`error: unexpected failure: ${(e as Error).stack ?? String(e)}`);
    }
    return EXIT_FAILED;
  }
}
