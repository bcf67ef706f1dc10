// Where SMS go: an adapter per provider (SMS_PROVIDER). `outbox` writes each SMS as a file in
// $DATA_DIR/outbox, beside the mail files of the file transport, under a temporary name renamed
// into place so that a reader never sees half a file. A provider with an HTTP API (an SMS gateway)
// is one more adapter with the same `send`; its failures are thrown and retried by the dispatcher.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../config.ts';

export interface OutgoingSms {
  id: string;
  /** E.164. */
  to: string;
  text: string;
}

export interface SmsSender {
  send(sms: OutgoingSms): Promise<void>;
}

export function outboxSmsSender(dir: string): SmsSender {
  return {
    send(sms) {
      mkdirSync(dir, { recursive: true });
      const name = `${Date.now()}-${sms.id}.sms`;
      const tmp = join(dir, `.${name}.tmp`);
      writeFileSync(tmp, `To: ${sms.to}\n\n${sms.text}\n`);
      renameSync(tmp, join(dir, name));
      return Promise.resolve();
    },
  };
}

export function smsSenderFor(config: Pick<Config, 'SMS_PROVIDER' | 'DATA_DIR'>): SmsSender {
  switch (config.SMS_PROVIDER) {
    case 'outbox':
      return outboxSmsSender(join(config.DATA_DIR, 'outbox'));
  }
}
