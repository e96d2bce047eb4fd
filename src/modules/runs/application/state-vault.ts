import { Inject, Injectable } from '@nestjs/common';
import { openJson, sealJson, StateUnreadableError } from '../../../agent';
import type { AppConfig } from '../../../config/app-config';
import { APP_CONFIG } from '../../../config/config.module';
import { resolveStateKey } from '../../../platform/database/state-key';
import { Checkpoint, isCheckpoint } from '../core/checkpoint';

/**
 * Seals and opens run checkpoints with AES-256-GCM under STATE_ENCRYPTION_KEY (generated into
 * DATA_DIR in embedded mode), bound to the run id so a checkpoint copied onto another run
 * does not open.
 */
@Injectable()
export class StateVault {
  private readonly key: Buffer;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.key = resolveStateKey(config.stateEncryptionKey, config.dataDir);
  }

  seal(runId: string, checkpoint: Checkpoint): string {
    return sealJson(checkpoint, this.key, runId);
  }

  /** The checkpoint of a run; `StateUnreadableError` when it cannot be decrypted or decoded. */
  open(runId: string, sealed: string | null): Checkpoint {
    if (!sealed) throw new StateUnreadableError('The run has no stored state');
    const value = openJson(sealed, this.key, runId);
    if (!isCheckpoint(value)) throw new StateUnreadableError('The stored state has an unknown shape');
    return value;
  }
}
