import { Injectable } from '@nestjs/common';

/**
 * Tells this process's delivery loop that an outbox row committed, so it sends at once rather
 * than at its next poll. Other processes find the row by polling (WEBHOOKS_POLL_MS).
 */
@Injectable()
export class OutboxSignal {
  private readonly listeners = new Set<() => void>();

  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  wake(): void {
    for (const listener of this.listeners) listener();
  }
}
