import type { Logger } from '../log';
import { buildRunEvent } from './event';
import type { LineageTransport } from './transport';
import type { LineageEmitter, LineageRunState } from './types';

export interface EmitterOptions {
  transport: LineageTransport;
  /** Job namespace. (Default: tributary) */
  namespace?: string;
  logger: Logger;
  /** Events held while the endpoint is slow; beyond it new events are dropped. (Default: 1000) */
  maxQueue?: number;
}

/**
 * A bounded queue sent in order by one sender, so a run never waits on the
 * lineage endpoint and START always leaves before its COMPLETE. An event the
 * endpoint refuses or cannot take is dropped (lineage is best effort): an
 * outage is logged once when it starts and once when it ends, not per event.
 */
export function createLineageEmitter(o: EmitterOptions): LineageEmitter {
  const namespace = o.namespace ?? 'tributary';
  const maxQueue = o.maxQueue ?? 1000;
  const queue: Record<string, unknown>[] = [];
  let sending: Promise<void> | null = null;
  let down = false;
  let dropped = 0;

  const pump = async () => {
    while (queue.length) {
      const ev = queue.shift()!;
      try {
        await o.transport.send(ev);
        if (down) {
          o.logger.info(`openlineage: ${o.transport.target} reachable again (${dropped} event(s) dropped meanwhile)`);
          down = false; dropped = 0;
        }
      } catch (e) {
        dropped++;
        if (!down) {
          down = true;
          o.logger.warn(`openlineage: cannot send events to ${o.transport.target} (${(e as Error).message}); runs go on, events are dropped until it answers`);
        }
      }
    }
    sending = null;
  };

  return {
    namespace,
    emit(state: LineageRunState) {
      if (queue.length >= maxQueue) {
        dropped++;
        if (!down) { down = true; o.logger.warn(`openlineage: ${o.transport.target} is not keeping up (${maxQueue} events queued); events are dropped until it catches up`); }
        return;
      }
      queue.push(buildRunEvent(state, namespace));
      sending ??= pump();
    },
    async flush(timeoutMs = 5000) {
      const until = Date.now() + timeoutMs;
      while (sending && Date.now() < until) {
        await Promise.race([sending, new Promise((r) => setTimeout(r, Math.max(1, until - Date.now())))]);
      }
    },
  };
}
