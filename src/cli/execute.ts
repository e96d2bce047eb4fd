import { Logger } from '@nestjs/common';
import { AppConfig, ConfigError, loadConfig } from '../config/app-config';
import { OperatorAccounts } from '../modules/auth';
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
    case 'user-list':
    case 'group-map-list':
    case 'group-map-add':
    case 'token-create':
    case 'token-list':
    case 'token-revoke':
      return done(await onAccounts(cmd, OperatorAccounts.over(db.dataSource)));
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

type AccountsCommand = Extract<
  DatabaseCommand,
  {
    kind:
      | 'user-create'
      | 'user-list'
      | 'group-map-list'
      | 'group-map-add'
      | 'token-create'
      | 'token-list'
      | 'token-revoke';
  }
>;

/** The user, token and group-map commands: the auth module's use cases, called as the system. */
async function onAccounts(cmd: AccountsCommand, accounts: OperatorAccounts): Promise<string[]> {
  try {
    switch (cmd.kind) {
      case 'user-create':
        return await createUser(accounts, cmd);
      case 'user-list':
        return await listUsers(accounts);
      case 'group-map-list':
        return await listGroupMappings(accounts);
      case 'group-map-add':
        return await addGroupMapping(accounts, cmd);
      case 'token-create':
        return await createToken(accounts, cmd);
      case 'token-list':
        return await listTokens(accounts, cmd);
      case 'token-revoke':
        return await revokeTokens(accounts, cmd);
    }
  } finally {
    await accounts.close();
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
  // why: the use cases the commands call log for servers (an audit line per change, say); the
  // command prints what it did itself, and stdout is for that (a token alone on its last line).
  Logger.overrideLogger(['error']);
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
